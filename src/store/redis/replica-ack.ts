import type { RedisClient } from './client.js';

/** A write no replica acknowledged in time: a failover now could lose it. */
export class NotReplicatedError extends Error {
  constructor(waitMs: number) {
    super(`no replica acknowledged the write within ${waitMs} ms`);
    this.name = 'NotReplicatedError';
  }
}

type Replies = Array<[Error | null, unknown]> | null;

const replyOf = (replies: Replies, at: number): unknown => {
  const [err, value] = replies?.[at] ?? [new Error('no reply'), undefined];
  if (err) throw err;
  return value;
};

/**
 * Confirms that a key just written reached a replica (Sentinel and Cluster replicate asynchronously: a
 * write the old master acknowledged but had not sent on is gone after a promotion). WAIT counts the writes
 * of its own connection, so it goes in one pipeline with the (idempotent) write again: on Cluster both
 * reach the node that holds the key, and after a reconnect the WAIT cannot vouch for a write made on an
 * earlier connection. A master with no replica attached has nothing a promotion could lose, and a WAIT
 * there would always run to its timeout, so ROLE is asked first, on the same node.
 * Costs two round trips (three with a replica); meant for session ends, not the request path.
 */
export function replicaAck(redis: RedisClient, waitMs: number) {
  return async (key: string, value: string, ttlMs: number): Promise<void> => {
    const role = replyOf(await redis.pipeline().set(key, value, 'PX', ttlMs).role().exec(), 1) as unknown[];
    if (role[0] !== 'master') throw new Error(`the node holding the key is a ${String(role[0])}, not a master`);
    if ((role[2] as unknown[]).length === 0) return;
    const acked = replyOf(await redis.pipeline().set(key, value, 'PX', ttlMs).wait(1, waitMs).exec(), 1);
    if (typeof acked !== 'number' || acked < 1) throw new NotReplicatedError(waitMs);
  };
}
