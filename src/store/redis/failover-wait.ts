import { Command, type Cluster, type Redis } from 'ioredis';

/**
 * How long store commands wait for a lost Redis connection to come back, and how many may wait at once.
 * `waitMs` 0 turns waiting off (every command fails at once while the connection is down, as before).
 */
export interface FailoverWaitOptions {
  waitMs: number;
  maxWaiters: number;
  now?: () => number;
}

/** What readiness and metrics read: is the store down, and if so, is it still within the wait bound. */
export interface FailoverWait {
  /** True while the connection is up, or down for less than `waitMs` (a failover being ridden out). */
  withinBound(): boolean;
  /** Commands waiting for the connection right now. */
  waiting(): number;
  /** Stops listening and fails every waiting command (the stores are closing). */
  close(): void;
}

type SendCommand = (command: Command, stream?: unknown, node?: unknown) => Promise<unknown>;

/** Statuses in which the client is looking for its server (reconnecting, asking sentinels, re-reading slots). */
const LOOKING = new Set(['connecting', 'connect', 'reconnecting', 'close']);

/**
 * Lets store commands ride out a lost connection (refused, reset, closed; a Sentinel client asking for the
 * new master; a Cluster client re-reading its slots) instead of failing at once.
 *
 * ioredis's own offline queue does not fit: the command timeout is armed when a command is queued, so a
 * queued command fails after REDIS_COMMAND_TIMEOUT_MS (800 ms), shorter than any failover, and the queue
 * has no size bound. So a command issued while the client is not ready is held here, before ioredis sees
 * it, until the client is ready again (then it goes out with its full command timeout, so a frozen server
 * still fails fast) or until `waitMs` after the connection was lost (then ioredis refuses it as before,
 * which the stores answer 503). Only commands that were never written wait: a command already sent when
 * the connection dropped fails as before and is never sent twice. Beyond `maxWaiters` waiting commands a
 * new one fails at once. A ready client costs one status check per command.
 */
export function rideOutFailover(client: Redis | Cluster, options: FailoverWaitOptions): FailoverWait {
  const now = options.now ?? Date.now;
  // A Redis never reached since start-up is not a failover: nothing waits, and readiness says so.
  let everReady = client.status === 'ready';
  let downSince: number | undefined = everReady ? undefined : now();
  let waiters = 0;
  const wakers = new Set<() => void>();

  const wakeAll = (): void => {
    for (const wake of [...wakers]) wake();
  };
  const onReady = (): void => {
    everReady = true;
    downSince = undefined;
    wakeAll();
  };
  const onLost = (): void => {
    if (downSince === undefined && client.status !== 'ready') downSince = now();
  };
  client.on('ready', onReady);
  client.on('close', onLost);
  client.on('error', onLost);
  client.on('reconnecting', onLost);
  client.on('end', wakeAll);

  const original = client.sendCommand.bind(client) as SendCommand;

  const mustWait = (command: Command, stream: unknown): boolean => {
    // A Cluster client's own CLUSTER INFO/SLOTS, sent while it is not ready, is how it becomes ready.
    if (!everReady || options.waitMs <= 0 || stream !== undefined || command.name === 'cluster') return false;
    const status = client.status;
    if (!LOOKING.has(status)) return false;
    // During the handshake the client sends its own AUTH/SELECT/INFO/ROLE; those must go through.
    if (status === 'connect' && (Command.checkFlag('HANDSHAKE_COMMANDS', command.name) || command.name === 'role'))
      return false;
    return true;
  };

  const patched: SendCommand = (command, stream, node) => {
    if (client.status === 'ready' || !mustWait(command, stream)) return original(command, stream, node);
    if (downSince === undefined) downSince = now();
    const left = downSince + options.waitMs - now();
    if (left <= 0 || waiters >= options.maxWaiters) return original(command, stream, node);
    waiters += 1;
    const wake = (): void => {
      if (!wakers.delete(wake)) return;
      waiters -= 1;
      clearTimeout(timer);
      // Ready: it goes out now. Still down at the bound, or ended: ioredis refuses it as it did before.
      void original(command, stream, node).catch(() => undefined);
    };
    wakers.add(wake);
    const timer = setTimeout(wake, left);
    return command.promise;
  };
  (client as { sendCommand: SendCommand }).sendCommand = patched;

  return {
    withinBound: () =>
      client.status === 'ready' || (everReady && (downSince === undefined || now() - downSince < options.waitMs)),
    waiting: () => waiters,
    close() {
      client.off('ready', onReady);
      client.off('close', onLost);
      client.off('error', onLost);
      client.off('reconnecting', onLost);
      client.off('end', wakeAll);
      wakeAll();
    },
  };
}
