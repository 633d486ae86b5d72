import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { AppError } from '../../errors.js';
import type { Logger } from '../../observability/logger.js';
import type { Metrics } from '../../observability/metrics.js';
import { answerError } from '../pipeline/error-handler.js';
import type { HeaderList } from '../pipeline/security-headers.js';

export const METRICS_PATH = '/metrics';

export interface MetricsListenerDeps {
  metrics: Metrics;
  logger: Logger;
  securityHeaders: HeaderList;
}

/**
 * The request listener of the metrics port (METRICS_PORT): Prometheus text at GET /metrics and nothing
 * else. It lives apart from the public listener so that no proxy rule, and no spelling of the path, can
 * publish the service's internals (the public app has no /metrics at all), as oauth2-proxy's metrics
 * address does.
 */
export function metricsListener(
  deps: MetricsListenerDeps,
): RequestListener<typeof IncomingMessage, typeof ServerResponse> {
  const { metrics, logger, securityHeaders } = deps;
  return (req, res) => {
    for (const [name, value] of securityHeaders) res.setHeader(name, value);
    const url = req.url ?? '';
    const q = url.indexOf('?');
    const path = q === -1 ? url : url.slice(0, q);
    const fail = (err: unknown) => answerError({ logger }, err, req, res, { requestId: undefined, path });
    if (path !== METRICS_PATH) return fail(new AppError('not_found', 'Not found'));
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      return fail(new AppError('method_not_allowed', 'Method not allowed', { headers: { Allow: 'GET, HEAD' } }));
    }
    metrics.registry.metrics().then((text) => {
      res.setHeader('Content-Type', metrics.registry.contentType);
      res.setHeader('Cache-Control', 'no-store');
      res.setHeader('Content-Length', Buffer.byteLength(text));
      res.end(req.method === 'HEAD' ? undefined : text);
    }, fail);
  };
}
