import { startRig, type Rig, type RigOptions } from '../../helpers/app-rig.js';
import { startSentinelGroup, type SentinelGroup, type SentinelGroupOptions } from '../../helpers/redis-sentinel.js';
import { startCluster, type Cluster } from '../multi-instance/cluster.js';

/** A private Sentinel group and service processes on it; both filled in by `beforeAll`. */
export interface SentinelRig {
  group: SentinelGroup;
  cluster: Cluster;
}

/**
 * Starts, in the calling `describe`'s beforeAll, a Sentinel group (1 master, 1 replica, 3 sentinels) and
 * `instances` service processes on it (Sentinel mode, login and per-session limits out of the way of a
 * load), and stops both in its afterAll. Read `group` and `cluster` inside tests, not at definition time.
 */
export function sentinelRig(options: {
  label: string;
  instances?: number;
  group?: SentinelGroupOptions;
  env?: Record<string, string>;
}): SentinelRig {
  const rig = {} as SentinelRig;
  beforeAll(async () => {
    rig.group = await startSentinelGroup(options.group);
    // The processes need only a sentinel that names the master (each does from its start); they start
    // while the sentinels find each other, and no test runs before both are done (afterAll stops either).
    const [ready, started] = await Promise.allSettled([
      rig.group.waitUntilReady(),
      startCluster({
        instances: options.instances ?? 3,
        label: options.label,
        env: {
          REDIS_URL: '',
          ...rig.group.serviceEnv,
          LOGIN_RATE_LIMIT: '1000',
          RELAY_SESSION_CONCURRENCY: '100',
          ...options.env,
        },
      }),
    ]);
    if (started.status === 'fulfilled') rig.cluster = started.value;
    if (ready.status === 'rejected') throw ready.reason;
    if (started.status === 'rejected') throw started.reason;
  });
  afterAll(async () => {
    await rig.cluster?.close();
    await rig.group?.stop();
  });
  return rig;
}

/** A private Sentinel group and an in-process rig (app-rig.ts) on it; both filled in by `beforeAll`. */
export interface SentinelAppRig {
  group: SentinelGroup;
  rig: Rig;
}

/**
 * Starts, in the calling `describe`'s beforeAll (within `startMs`), a Sentinel group and, once its sentinels
 * are ready, an in-process rig in Sentinel mode on it; stops both in its afterAll. Read `group` and `rig`
 * inside tests, not at definition time.
 */
export function sentinelAppRig(options: Omit<RigOptions, 'store'> = {}, startMs = 60_000): SentinelAppRig {
  const made = {} as SentinelAppRig;
  beforeAll(async () => {
    made.group = await startSentinelGroup();
    await made.group.waitUntilReady();
    made.rig = await startRig({ ...options, store: { env: made.group.serviceEnv } });
  }, startMs);
  afterAll(async () => {
    await made.rig?.close();
    await made.group?.stop();
  });
  return made;
}
