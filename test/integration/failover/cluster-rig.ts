import { startCluster, type Cluster } from '../multi-instance/cluster.js';
import { startReplicatedCluster, type ReplicatedCluster } from './replicated-cluster.js';

/** A private Redis Cluster and service processes on it; both filled in by `beforeAll`. */
export interface ClusterRig {
  redis: ReplicatedCluster;
  cluster: Cluster;
}

/**
 * Starts, in the calling `describe`'s beforeAll, a Redis Cluster of three masters with a replica each and
 * `instances` service processes on it (Cluster mode from every node, login and per-session limits out of the
 * way of a load), and stops both in its afterAll: sentinelRig's twin. Read `redis` and `cluster` inside
 * tests, not at definition time.
 */
export function clusterRig(options: {
  label: string;
  instances: number;
  /** cluster-node-timeout: how soon a replica of a dead master starts its election. */
  nodeTimeoutMs: number;
  env?: Record<string, string>;
  setupTimeoutMs?: number;
}): ClusterRig {
  const rig = {} as ClusterRig;
  beforeAll(async () => {
    rig.redis = await startReplicatedCluster({ nodeTimeoutMs: options.nodeTimeoutMs });
    rig.cluster = await startCluster({
      instances: options.instances,
      label: options.label,
      env: {
        REDIS_URL: '',
        REDIS_CLUSTER_NODES: rig.redis.nodeList,
        LOGIN_RATE_LIMIT: '1000',
        RELAY_SESSION_CONCURRENCY: '100',
        ...options.env,
      },
    });
  }, options.setupTimeoutMs ?? 90_000);
  afterAll(async () => {
    await rig.cluster?.close();
    await rig.redis?.stop();
  });
  return rig;
}
