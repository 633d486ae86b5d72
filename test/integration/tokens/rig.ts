import { randomUUID } from 'node:crypto';
import { createMetrics, type Metrics } from '../../../src/observability/metrics.js';
import type { SimulatorHandle, SimulatorOptions } from '../../../src/simulator/types.js';
import { createTokenApi, type TokenClient } from '../../../packages/client/src/restpp-client.js';
import { createTokenBroker, type TokenBroker, type TokenBrokerDeps } from '../../../src/tokens/token-broker.js';
import { startRig as startServiceRig } from '../../helpers/app-rig.js';
import { manualClock, type ManualClock } from '../../helpers/clock.js';
import { createCipher } from '../../../src/crypto/crypto.js';
import { openRedisStores, type StoreKind, type TestStores } from './stores.js';

export const LIFETIME_SEC = 3600;
export const REFRESH_BEFORE_SEC = 300;
export const SESSION_TTL_MS = 3_600_000;
/** Clock step that lands inside the refresh window of a token minted at the current time. */
export const INTO_REFRESH_WINDOW_MS = (LIFETIME_SEC - REFRESH_BEFORE_SEC + 10) * 1000;

/** The service rig (test/helpers/app-rig.ts) on a manual clock, seen from the token broker's side. */
export interface Rig {
  sim: SimulatorHandle;
  clock: ManualClock;
  api: TokenClient;
  secret: string;
  alias: string;
  /** The service's token and lease stores (memory, or Redis under the rig's prefix). */
  stores: TestStores;
  /** The registry of the brokers `broker()` makes (not the service's). */
  metrics: Metrics;
  /** Another instance's stores on the same Redis keys (own connection, the service's encryption keys). */
  openInstance(): Promise<TestStores>;
  /** A broker over the rig's stores; pass other stores to play another instance. */
  broker(overrides?: Partial<TokenBrokerDeps>): TokenBroker;
  /** Upstream calls seen for "METHOD /path" since the last resetCounts(). */
  count(key: string): number;
  /** Every upstream token call, whatever its method, on either era's endpoint. */
  tokenCalls(): number;
  close(): Promise<void>;
}

export async function startRig(opts: {
  store: StoreKind;
  /** Names the key prefix (`test:<label>:…`). */
  label: string;
  sim?: SimulatorOptions;
  clientTimeoutMs?: number;
}): Promise<Rig> {
  const clock = manualClock();
  const service = await startServiceRig({
    store: opts.store,
    label: opts.label,
    now: clock.now,
    ...(opts.sim && { sim: opts.sim }),
  });
  const { sim } = service;
  const api = createTokenApi({
    restppUrl: sim.restppUrl,
    gsqlUrl: sim.gsqlUrl,
    version: sim.version,
    now: clock.now,
    ...(opts.clientTimeoutMs ? { timeoutMs: opts.clientTimeoutMs } : {}),
  });
  const { tokens, leases } = service.service.stores;
  const metrics = createMetrics({ defaultMetrics: false });
  const count = (key: string): number => sim.counts()[key] ?? 0;

  return {
    sim,
    clock,
    api,
    secret: service.secret,
    alias: service.alias,
    stores: { tokens, leases, prefix: service.prefix, close: async () => undefined },
    metrics,
    openInstance: () => openRedisStores(service.prefix, createCipher([...service.config.session.encryptionKeys])),
    broker: (overrides = {}) =>
      createTokenBroker({
        api,
        tokens,
        leases,
        lifetimeSec: LIFETIME_SEC,
        refreshBeforeSec: REFRESH_BEFORE_SEC,
        now: clock.now,
        instanceId: `test-${randomUUID()}`,
        metrics,
        ...overrides,
      }),
    count,
    tokenCalls: () =>
      Object.entries(sim.counts())
        .filter(([key]) => key.endsWith(' /requesttoken') || key.endsWith(' /gsql/v1/tokens'))
        .reduce((sum, [, n]) => sum + n, 0),
    close: async () => {
      await api.close();
      await service.close();
    },
  };
}

/** A fresh session id per test, so no test sees another's token state. */
export const newSid = (): string => `sid-${randomUUID()}`;

/** The current value of a labelled counter (prom-client keeps them in the metrics registry). */
export async function counterValue(
  counter: Metrics['tokenCalls'] | Metrics['leaseWaits'] | Metrics['tokenDeletes'],
  labels: Record<string, string>,
): Promise<number> {
  const { values } = await counter.get();
  const match = values.find((v) => {
    const have = v.labels as Record<string, string | number | undefined>;
    return Object.entries(labels).every(([k, val]) => have[k] === val);
  });
  return match?.value ?? 0;
}
