import type { Cluster, Redis } from 'ioredis';
import { isTimeout } from './reissue.js';

/** Hash slots of a Redis Cluster. */
const SLOTS = 16_384;

/**
 * The readiness check of a Cluster client that is ready: every hash slot has a master that answers, and
 * for how long not.
 *
 * A PING answers on any live node, and with `cluster-require-full-coverage no` the surviving primaries keep
 * serving their own slots, so a slot left without a master (its primary and its replica gone) fails its
 * requests at STORE_FAILOVER_WAIT_MS while a PING says all is well. This pings the master of every slot
 * (one PING per primary, on the connection ioredis keeps to it: never a relayed request's, never retried)
 * and rejects once some slot has been without an answering master for `waitMs`: within the bound a
 * failover is being ridden out (a replica is promoted in 2–3 s) and the instance stays ready, past it it is
 * not, and it is ready again once every slot's master answers. A slot without a master makes ioredis read
 * the slot table again. A master whose open connection gets no answer within the command timeout (frozen)
 * rejects at once, as a standalone Redis's PING does.
 *
 * Each slot counts on its own, from the first probe that found it without a master since one last found it
 * served: a primary replaced earlier (its slots unserved for a while) never shortens the bound of another
 * primary lost later, even with no probe in between. Called by the shared readiness probe only (about once a
 * second at most), never on the request path.
 */
export function watchSlotMasters(
  cluster: Cluster,
  options: { waitMs: number; now?: () => number },
): () => Promise<void> {
  const now = options.now ?? Date.now;
  // Per slot: since when probes have found it without an answering master; NaN while it is served.
  const unservedSince = new Float64Array(SLOTS).fill(Number.NaN);
  return async () => {
    const owners = Array.from({ length: SLOTS }, (_, slot) => cluster.slots[slot]?.[0]);
    const answering = await answeringMasters(cluster, new Set(owners.filter((o) => o !== undefined)));
    const at = now();
    let oldest = Number.POSITIVE_INFINITY;
    for (let slot = 0; slot < SLOTS; slot += 1) {
      const owner = owners[slot];
      if (owner !== undefined && answering.has(owner)) {
        unservedSince[slot] = Number.NaN;
        continue;
      }
      if (Number.isNaN(unservedSince[slot])) unservedSince[slot] = at;
      oldest = Math.min(oldest, unservedSince[slot]!);
    }
    if (oldest === Number.POSITIVE_INFINITY) return;
    cluster.refreshSlotsCache();
    if (at - oldest >= options.waitMs) throw new Error(`a hash slot has had no answering master for ${at - oldest} ms`);
  };
}

const nodeKey = (node: Redis): string => `${node.options.host}:${node.options.port}`;

/**
 * Which of `masters` (node keys) answer a PING. One not in ioredis's pool (its connection was refused, and
 * ioredis dropped it) or whose connection fails does not. Rejects if one was connected and did not answer
 * within the command timeout: a frozen master.
 */
async function answeringMasters(cluster: Cluster, masters: Set<string>): Promise<Set<string>> {
  const nodes = new Map(cluster.nodes('all').map((node) => [nodeKey(node), node]));
  const answering = new Set<string>();
  await Promise.all(
    [...masters].map(async (key) => {
      const node = nodes.get(key);
      if (!node) return;
      const connected = node.status === 'ready';
      try {
        await node.ping();
        answering.add(key);
      } catch (err) {
        if (connected && node.status === 'ready' && isTimeout(err as Error))
          throw new Error(`Redis Cluster master ${key} did not answer a PING on its open connection`, { cause: err });
      }
    }),
  );
  return answering;
}
