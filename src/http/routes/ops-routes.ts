import type { Request, Response, Router } from 'express';
import type { Dependency, DependencyFaults } from '../../observability/dependency-faults.js';
import type { Metrics } from '../../observability/metrics.js';
import { strictRoutes } from '../route-helpers/routing.js';

export interface ReadinessCheck {
  name: string;
  /** Resolves when the dependency answers; rejects otherwise. */
  check: () => Promise<void>;
  /** Which dependency it probes: a failure is a fault line, and /readyz's details say what failed and why. */
  dependency?: Dependency;
  /** Something /readyz reports about a dependency that answers (TG_VERSION disagreeing with TigerGraph). */
  note?: () => ReadinessDetail | undefined;
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
  /** A check's verdict is reused for this long after its probe ended (default READINESS_PROBE_INTERVAL_MS). */
  probeIntervalMs?: number;
  metrics?: Metrics;
  /** Why the instance is overloaded now (the overload guard), or null: /readyz then answers 503 at once. */
  overloaded?: () => string | null;
  /** Names each failing dependency's fault (code, setting, reason) in /readyz, and logs it once per interval. */
  faults?: DependencyFaults;
}

/** Why a dependency is failing, as /readyz says it: a fault code, the setting to look at, a reason; no address. */
export interface ReadinessDetail {
  fault: string;
  setting: string;
  reason: string;
}

/** At most one probe per dependency per this many ms per instance, however many callers ask. */
export const READINESS_PROBE_INTERVAL_MS = 1000;

function withTimeout(p: Promise<void>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<void>((_, reject) => {
    timer = setTimeout(
      () => reject(Object.assign(new Error(`no answer within ${ms} ms (readiness)`), { code: 'ETIMEDOUT' })),
      ms,
    );
  });
  return Promise.race([p, deadline]).finally(() => clearTimeout(timer));
}

/**
 * One probe of a dependency shared by every caller (docs/architecture.md, "Bounded per principal and per address": anonymous requests never spend upstream
 * resources): callers during a probe wait for that probe, callers within `intervalMs` of its end get its
 * verdict, and a probe still running past its timeout (a hung dependency) is never joined by another: it
 * counts as unavailable until it ends. So a flood of /readyz costs each dependency about one probe a second.
 */
function sharedProbe(
  name: string,
  check: () => Promise<void>,
  timeoutMs: number,
  intervalMs: number,
  metrics?: Metrics,
  failed?: (err: unknown) => void,
): () => Promise<boolean> {
  let verdict: Promise<boolean> | undefined;
  let running = false;
  let last: { at: number; ok: boolean } | undefined;
  return () => {
    if (verdict) return verdict;
    if (last && (running || performance.now() - last.at < intervalMs))
      return Promise.resolve(running ? false : last.ok);
    running = true;
    const probe = check().finally(() => {
      running = false;
    });
    verdict = withTimeout(probe, timeoutMs)
      .then(
        () => true,
        (err: unknown) => {
          failed?.(err);
          return false;
        },
      )
      .then((ok) => {
        last = { at: performance.now(), ok };
        verdict = undefined;
        metrics?.readinessProbes.inc({ check: name, result: ok ? 'ok' : 'error' });
        return ok;
      });
    return verdict;
  };
}

/**
 * Liveness and readiness. No session, no CSRF: load balancers call these. Metrics are not here: they have
 * their own port (metrics-listener.ts).
 */
export function opsRoutes(deps: OpsRoutesDeps): Router {
  const routes = strictRoutes();
  const timeoutMs = deps.checkTimeoutMs ?? 1000;
  const intervalMs = deps.probeIntervalMs ?? READINESS_PROBE_INTERVAL_MS;
  const { faults } = deps;
  const probes = deps.checks.map((c) => {
    const dependency = c.dependency;
    // A failed probe is a fault line (once per cause per interval) and the dependency's latest fault.
    const failed = dependency && faults ? (err: unknown) => void faults.report(dependency, err) : undefined;
    return { ...c, probe: sharedProbe(c.name, c.check, timeoutMs, intervalMs, deps.metrics, failed) };
  });
  /** Why a check failed (its dependency's latest fault), or what a passing one notes; no address, no secret. */
  const detailOf = (check: (typeof probes)[number], ok: boolean): ReadinessDetail | undefined => {
    if (ok) return check.note?.();
    const fault = check.dependency && faults?.latest(check.dependency);
    return fault ? { fault: fault.fault, setting: fault.setting, reason: fault.reason } : undefined;
  };

  routes.get('/healthz', (_req: Request, res: Response) => {
    res.set('Cache-Control', 'no-store').json({ status: 'ok' });
  });

  routes.get('/readyz', async (_req: Request, res: Response) => {
    const results: Record<string, string> = {};
    const details: Record<string, ReadinessDetail> = {};
    if (deps.isDraining()) {
      res
        .status(503)
        .set('Cache-Control', 'no-store')
        .json({ status: 'not_ready', reason: 'draining', checks: results });
      return;
    }
    // Overloaded: no probe (the dependencies are not the problem, and a probe is work); the balancer steers away.
    const overloaded = deps.overloaded?.();
    if (overloaded) {
      res
        .status(503)
        .set('Cache-Control', 'no-store')
        .json({ status: 'not_ready', reason: 'overloaded', overload: overloaded, checks: results });
      return;
    }
    await Promise.all(
      probes.map(async (check) => {
        const ok = await check.probe();
        results[check.name] = ok ? 'ok' : 'unavailable';
        const detail = detailOf(check, ok);
        if (detail !== undefined) details[check.name] = detail;
      }),
    );
    const explained = Object.keys(details).length > 0 ? { details } : {};
    const gating = new Set(deps.checks.filter((c) => !c.informational).map((c) => c.name));
    const failed = Object.keys(results).filter((name) => gating.has(name) && results[name] !== 'ok');
    const ready = failed.length === 0 && !deps.isDraining();
    res
      .status(ready ? 200 : 503)
      .set('Cache-Control', 'no-store')
      .json(
        ready
          ? { status: 'ready', checks: results, ...explained }
          : {
              status: 'not_ready',
              reason: failed.length ? `${failed.join(', ')} unavailable` : 'draining',
              checks: results,
              ...explained,
            },
      );
  });

  return routes.router;
}
