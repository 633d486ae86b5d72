import { Command, type Cluster, type Redis } from 'ioredis';

/**
 * The client a store command is issued for: the HTTP response of the request (a `ServerResponse` fits).
 * Read only when a command has to wait, so a ready Redis never looks at it.
 */
export interface WaitingClient {
  /** The response went out in full: what is still issued for it (a touch, an audit write) is not abandoned. */
  readonly writableFinished: boolean;
  /** The connection is gone (with `writableFinished` false: the client left before its answer). */
  readonly destroyed: boolean;
  once(event: 'close', listener: () => void): unknown;
  off(event: 'close', listener: () => void): unknown;
}

let issuing: WaitingClient | undefined;

/**
 * Issues `issue`'s store commands for `client`: a command that has to wait for a lost connection stops
 * waiting, freeing its slot, and is never sent, when that client leaves. Only commands issued synchronously
 * within `issue` are tied to it (ioredis sends in the call), so the hot path pays two assignments and no
 * async context tracking (AsyncLocalStorage cost about a third more CPU per relayed request on Node 20).
 */
export function issuedFor<T>(client: WaitingClient, issue: () => T): T {
  const outer = issuing;
  issuing = client;
  try {
    return issue();
  } finally {
    issuing = outer;
  }
}

/** Whether `client` left before its answer was sent. */
const clientLeft = (client: WaitingClient): boolean => client.destroyed && !client.writableFinished;

/** What a command freed by its client leaving fails with (the request is gone; nobody reads the 503). */
export class ClientLeftError extends Error {
  constructor() {
    super('the client left while its store command waited for Redis; not sent');
    this.name = 'ClientLeftError';
  }
}

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
 *
 * A command issued for a request (see `issuedFor`) stops waiting when that request's client leaves:
 * its slot is free at once and the command is never sent (it fails with ClientLeftError).
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
    const remaining = downSince + options.waitMs - now();
    if (remaining <= 0 || waiters >= options.maxWaiters) return original(command, stream, node);
    const scope = issuing;
    const watched = scope !== undefined && !scope.writableFinished ? scope : undefined;
    if (watched && clientLeft(watched)) {
      command.reject(new ClientLeftError());
      return command.promise;
    }
    waiters += 1;
    const release = (): boolean => {
      if (!wakers.delete(wake)) return false;
      waiters -= 1;
      clearTimeout(timer);
      watched?.off('close', onLeave);
      return true;
    };
    // Ready: it goes out now. Still down at the bound, or ended: ioredis refuses it as it did before.
    const wake = (): void => {
      if (release()) void original(command, stream, node).catch(() => undefined);
    };
    const onLeave = (): void => {
      if (watched && clientLeft(watched) && release()) command.reject(new ClientLeftError());
    };
    wakers.add(wake);
    const timer = setTimeout(wake, remaining);
    watched?.once('close', onLeave);
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
