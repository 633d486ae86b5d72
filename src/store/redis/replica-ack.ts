import { setTimeout as sleep } from 'node:timers/promises';
import { Cluster } from 'ioredis';
import type { RedisClient } from './client.js';
import { isFailoverError, isTimeout } from './reissue.js';

/** A write no replica acknowledged in time: a failover now could lose it. */
export class NotReplicatedError extends Error {
  constructor(waitMs: number) {
    super(`no replica acknowledged the write within ${waitMs} ms`);
    this.name = 'NotReplicatedError';
  }
}

/** A reply that is not what an acknowledgement expects (a node that is no master): not tried again. */
class UnexpectedReplyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UnexpectedReplyError';
  }
}

type Replies = Array<[Error | null, unknown]> | null;

const replyOf = (replies: Replies, at: number): unknown => {
  const [err, value] = replies?.[at] ?? [new UnexpectedReplyError('no reply'), undefined];
  if (err) throw err;
  return value;
};

/** Pause between a try that met a lost connection and the next one (as failover-wait.ts's). */
const RETRY_DELAY_MS = 100;

/**
 * A try that met a lost or refused connection: refused, never sent, or (`lostSince`: the connection closed
 * while it was out) dropped on the wire, which ioredis leaves to the command timeout. Not a server that just
 * stopped answering (a timeout on a connection that stayed up: a frozen master fails fast), nor a reply.
 */
const worthAnotherTry = (err: unknown, lostSince: boolean): boolean =>
  err instanceof Error &&
  !(err instanceof NotReplicatedError || err instanceof UnexpectedReplyError) &&
  isFailoverError(err) &&
  (!isTimeout(err) || lostSince);

/**
 * Confirms that a key just written reached a replica (Sentinel and Cluster replicate asynchronously: a
 * write the old master acknowledged but had not sent on is gone after a promotion). WAIT counts the writes
 * of its own connection, so it goes in one pipeline with the (idempotent) write again: on Cluster both
 * reach the node that holds the key, and after a reconnect the WAIT cannot vouch for a write made on an
 * earlier connection. A master with no replica attached has nothing a promotion could lose, and a WAIT
 * there would always run to its timeout, so ROLE is asked first, on the same node.
 * Costs two round trips (three with a replica); meant for session ends, not the request path. `redis` is a
 * connection of its own (ack-connection.ts): Redis blocks the connection a WAIT runs on.
 *
 * Every command here may run twice (the same SET, ROLE, WAIT), so a try that met a lost connection (a
 * failover: the pipeline is not issued again by failover-wait.ts) is tried again within `retryWithinMs`; on
 * Cluster after the slots are read again, so it reaches the promoted node. A frozen server is not.
 * A replica that stopped acknowledging is probed by one WAIT at a time (`lagging`, below).
 */
export function replicaAck(redis: RedisClient, waitMs: number, retryWithinMs = 0) {
  // Masters whose replicas did not acknowledge the last WAIT (it ran to its timeout, or timed out queued
  // behind others): until one is acknowledged again, one WAIT at a time goes there and the others fail at
  // once. Each WAIT blocks the connection, so otherwise a run of logouts against a frozen replica would
  // queue one wait each in Redis, and the queue would outlast the freeze. Emptied as masters acknowledge.
  const lagging = new Map<string, 'lagging' | 'probing'>();
  // One master behind a Sentinel connection: while its probe runs, nothing is sent (it would queue behind
  // the probe's WAIT). A Cluster node is known by its ROLE reply only, after the probe's WAIT on that node.
  const single = !(redis instanceof Cluster);
  const once = async (key: string, value: string, ttlMs: number): Promise<void> => {
    if (single && [...lagging.values()].includes('probing')) throw new NotReplicatedError(waitMs);
    const role = replyOf(await redis.pipeline().set(key, value, 'PX', ttlMs).role().exec(), 1) as unknown[];
    if (role[0] !== 'master')
      throw new UnexpectedReplyError(`the node holding the key is a ${String(role[0])}, not a master`);
    const replicas = role[2] as unknown[];
    if (replicas.length === 0) return;
    // The master, known by its replicas (ROLE names them; the same on Sentinel and on each Cluster node).
    const master = replicas.map((r) => (Array.isArray(r) ? `${String(r[0])}:${String(r[1])}` : String(r))).join();
    const state = lagging.get(master);
    if (state === 'probing') throw new NotReplicatedError(waitMs);
    const probe = state === 'lagging';
    if (probe) lagging.set(master, 'probing');
    try {
      const acked = replyOf(await redis.pipeline().set(key, value, 'PX', ttlMs).wait(1, waitMs).exec(), 1);
      if (typeof acked !== 'number' || acked < 1) throw new NotReplicatedError(waitMs);
      lagging.delete(master);
    } catch (err) {
      const unanswered = err instanceof NotReplicatedError || (err instanceof Error && isTimeout(err));
      // A failed probe, whatever failed it, lets the next one go; a first miss starts the probing.
      if (probe || (unanswered && !lagging.has(master))) lagging.set(master, 'lagging');
      throw err;
    }
  };
  // Connections lost so far (a Cluster's node links end instead, and fail what they held at once).
  let losses = 0;
  redis.on('close', () => {
    losses += 1;
  });
  return async (key: string, value: string, ttlMs: number): Promise<void> => {
    const deadline = Date.now() + retryWithinMs;
    for (;;) {
      const lossesBefore = losses;
      try {
        return await once(key, value, ttlMs);
      } catch (err) {
        const again = worthAnotherTry(err, losses !== lossesBefore);
        if (!again || Date.now() + RETRY_DELAY_MS >= deadline || redis.status === 'end') throw err;
      }
      await sleep(RETRY_DELAY_MS);
      if (redis instanceof Cluster) redis.refreshSlotsCache();
    }
  };
}
