import type { Request, Response, Router } from 'express';
import { strictRoutes } from './routing.js';

export interface ReadinessCheck {
  name: string;
  /** Resolves when the dependency answers; rejects otherwise. */
  check: () => Promise<void>;
  /**
   * Reported in /readyz but never makes the instance unready: for a dependency that only some requests
   * need and every replica shares (the IdP), where pulling all replicas out of the balancer would turn a
   * partial outage (no new SSO logins) into a total one.
   */
  informational?: boolean;
}

export interface OpsRoutesDeps {
  isDraining: () => boolean;
  checks: ReadinessCheck[];
  /** Bound on each readiness check, so a hung dependency makes /readyz answer 503, not hang. */
  checkTimeoutMs?: number;
}

function withTimeout(p: Promise<void>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<void>((_, reject) => {
    timer = setTimeout(() => reject(new Error('timed out')), ms);
  });
  return Promise.race([p, deadline]).finally(() => clearTimeout(timer));
}

/**
 * Liveness and readiness. No session, no CSRF: load balancers call these. Metrics are not here: they have
 * their own port (metrics-listener.ts).
 */
export function opsRoutes(deps: OpsRoutesDeps): Router {
  const routes = strictRoutes();
  const timeoutMs = deps.checkTimeoutMs ?? 1000;

  routes.get('/healthz', (_req: Request, res: Response) => {
    res.set('Cache-Control', 'no-store').json({ status: 'ok' });
  });

  routes.get('/readyz', async (_req: Request, res: Response) => {
    const results: Record<string, string> = {};
    if (deps.isDraining()) {
      res
        .status(503)
        .set('Cache-Control', 'no-store')
        .json({ status: 'not_ready', reason: 'draining', checks: results });
      return;
    }
    await Promise.all(
      deps.checks.map(async ({ name, check }) => {
        try {
          await withTimeout(check(), timeoutMs);
          results[name] = 'ok';
        } catch {
          results[name] = 'unavailable';
        }
      }),
    );
    const gating = new Set(deps.checks.filter((c) => !c.informational).map((c) => c.name));
    const failed = Object.keys(results).filter((name) => gating.has(name) && results[name] !== 'ok');
    const ready = failed.length === 0 && !deps.isDraining();
    res
      .status(ready ? 200 : 503)
      .set('Cache-Control', 'no-store')
      .json(
        ready
          ? { status: 'ready', checks: results }
          : {
              status: 'not_ready',
              reason: failed.length ? `${failed.join(', ')} unavailable` : 'draining',
              checks: results,
            },
      );
  });

  return routes.router;
}
