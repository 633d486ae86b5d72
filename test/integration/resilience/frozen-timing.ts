import { randomBytes } from 'node:crypto';
import { createCipher } from '../../../src/crypto/crypto.js';
import type { Logger } from '../../../src/observability/logger.js';
import type { SimulatorHandle } from '../../../src/simulator/types.js';
import { createStores } from '../../../src/store/create-stores.js';
import type { Stores } from '../../../src/store/types.js';
import type { ServiceProcess } from '../../helpers/service-process.js';
import { OPEN_LOGIN_LIMITS } from '../multi-instance/cluster.js';
import { until } from '../../helpers/wait.js';

/** A frozen-store test's service settings but the Redis ones: the simulator, the command timeout, open limits. */
export const frozenServiceEnv = (sim: SimulatorHandle, commandTimeoutMs: number): Record<string, string> => ({
  NODE_ENV: 'test',
  TG_RESTPP_URL: sim.restppUrl,
  TG_GSQL_URL: sim.gsqlUrl,
  TG_VERSION: sim.version,
  REDIS_COMMAND_TIMEOUT_MS: String(commandTimeoutMs),
  SESSION_SECRET: randomBytes(32).toString('hex'),
  SESSION_ENCRYPTION_KEYS: `k1:${randomBytes(32).toString('base64')}`,
  COOKIE_SECURE: 'false',
  ...OPEN_LOGIN_LIMITS,
});

/**
 * The stores in process on a private standalone Redis (`url`), as a frozen or stalled Redis test needs them:
 * the given command timeout, failover waits as deployed (10 s, 1000 waiters), no logout replica wait, no
 * session cache (its heartbeat would make Redis commands of its own).
 */
export const storesOnOwnRedis = (
  url: string,
  prefix: string,
  commandTimeoutMs: number,
  logger: Logger,
): Promise<Stores> =>
  createStores(
    {
      redis: {
        mode: 'standalone',
        url,
        prefix,
        tls: false,
        commandTimeoutMs,
        failoverWaitMs: 10_000,
        failoverWaiters: 1000,
        logoutReplicaWaitMs: 0,
        sessionCache: false,
      },
      idleTimeoutSeconds: 3600,
    },
    { cipher: createCipher([{ id: 'k', key: randomBytes(32) }]), logger },
  );

/** How the frozen-store tests time one request: its answer, and where to find the service's own time. */
export interface Timed {
  kind: string;
  status: number;
  code: string | undefined;
  /** As the test's fetch saw it (the loaded test machine's own delays included). */
  ms: number;
  requestId: string;
}

export async function timed(kind: string, url: string, init: RequestInit): Promise<Timed> {
  const start = performance.now();
  const res = await fetch(url, { ...init, signal: AbortSignal.timeout(10_000) });
  const text = await res.text();
  const ms = Math.round(performance.now() - start);
  let code: string | undefined;
  try {
    code = (JSON.parse(text) as { error?: { code?: string } }).error?.code;
  } catch {
    code = undefined;
  }
  return { kind, status: res.status, code, ms, requestId: res.headers.get('x-request-id') ?? '' };
}

/** The service's own time for a request (its access line's durationMs: arrival to the answer sent). */
export async function served(bff: ServiceProcess, requestId: string): Promise<number> {
  // The line may reach the process's output a moment after the answer reached the client.
  const line = await until(`the access line of request ${requestId}`, () =>
    bff
      .output()
      .split('\n')
      .find((l) => l.includes(requestId) && l.includes('"msg":"request"')),
  );
  return (JSON.parse(line) as { durationMs: number }).durationMs;
}
