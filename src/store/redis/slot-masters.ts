import type { Cluster, Redis } from 'ioredis';

/** Hash slots of a Redis Cluster. */
const SLOTS = 16_384;

/**
 * Readiness on Cluster: whether every hash slot has a master that answers, and for how long not.
 *
 * A PING answers on any live node, and with `cluster-require-full-coverage no` the surviving primaries keep
 * serving their own slots, so a slot left without a master (its primary and its replica gone) fails its
 * requests at STORE_FAILOVER_WAIT_MS while a PING says all is well. This pings the master of every slot
 * (one PING per primary, on the connection ioredis keeps to it; never a relayed request's) and rejects once
 * some slot has been without an answering master for `waitMs`: within the bound a failover is being ridden
 * out (a replica is promoted in 2–3 s) and the instance stays ready, past it it is not, and it is ready
 * again once every slot's master answers. A slot without a master makes ioredis read the slot table again.
 * Called by the shared readiness probe only (about once a second at most), never on the request path.
 */
export function watchSlotMasters(
  cluster: Cluster,
  options: { waitMs: number; now?: () => number },
): () => Promise<void> {
  const now = options.now ?? Date.now;
  let unservedSince: number | undefined;
  return async () => {
    if (await everySlotServed(cluster)) {
      unservedSince = undefined;
      return;
    }
    cluster.refreshSlotsCache();
    const at = now();
    unservedSince ??= at;
    if (at - unservedSince >= options.waitMs)
      throw new Error(`a hash slot has had no answering master for ${at - unservedSince} ms`);
  };
}

const nodeKey = (node: Redis): string => `${node.options.host}:${node.options.port}`;

/** Whether the slot table names a master for every slot, and each of those masters answers a PING. */
async function everySlotServed(cluster: Cluster): Promise<boolean> {
  const masters = new Set<string>();
  for (let slot = 0; slot < SLOTS; slot += 1) {
    const master = cluster.slots[slot]?.[0];
    if (master === undefined) return false;
    masters.add(master);
  }
  // A node whose connection was refused is dropped from ioredis's pool: not found here, not served.
  const nodes = new Map(cluster.nodes('all').map((node) => [nodeKey(node), node]));
  const answers = await Promise.all(
    [...masters].map(async (key) => {
      const node = nodes.get(key);
      if (!node) return false;
      return node.ping().then(
        () => true,
        () => false,
      );
    }),
  );
  return answers.every(Boolean);
}
