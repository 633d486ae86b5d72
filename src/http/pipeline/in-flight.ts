import type { Metrics } from '../../observability/metrics.js';
import type { Step } from './step.js';

/** The in-flight gauge: up on arrival, down when the response closes (finished or abandoned). */
export function countInFlight(metrics: Metrics): Step {
  const done = () => metrics.activeRequests.dec();
  return (_req, res) => {
    metrics.activeRequests.inc();
    res.once('close', done);
  };
}
