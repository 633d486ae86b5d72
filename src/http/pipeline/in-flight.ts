import type { Metrics } from '../../observability/metrics.js';
import type { Step } from './step.js';

/**
 * The in-flight gauge: up on arrival, down when the response closes (finished or abandoned). With `count`
 * (the overload guard's), a plain counter kept the same way, on the same one listener.
 */
export function countInFlight(metrics: Metrics, count?: { n: number }): Step {
  if (count === undefined) {
    const done = () => metrics.activeRequests.dec();
    return (_req, res) => {
      metrics.activeRequests.inc();
      res.once('close', done);
    };
  }
  const done = () => {
    count.n--;
    metrics.activeRequests.dec();
  };
  return (_req, res) => {
    count.n++;
    metrics.activeRequests.inc();
    res.once('close', done);
  };
}
