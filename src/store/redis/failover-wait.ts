import { Command, type Cluster, type Redis } from 'ioredis';
import type { StoreCall } from '../store-call.js';
import {
  freshTry,
  isFailoverError,
  isReadOnly,
  isTimeout,
  mayHaveRun,
  noteRefusal,
  retire,
  settle,
} from './reissue.js';

let issuing: StoreCall | undefined;

/**
 * Issues `issue`'s Redis commands for `call` (store-call.ts): a command that has to wait for a lost
 * connection stops waiting, freeing its slot, and is never sent, once `call.signal` aborts. Called by the
 * Redis stores around the one ioredis call of an operation (ioredis builds and sends the command within it),
 * so the hot path pays two assignments and no async context tracking (AsyncLocalStorage cost about a third
 * more CPU per relayed request on Node 20); `call.signal` is read only when a command has to wait.
 */
export function issuedFor<T>(call: StoreCall | undefined, issue: () => T): T {
  if (call === undefined) return issue();
  const outer = issuing;
  issuing = call;
  try {
    return issue();
  } finally {
    issuing = outer;
  }
}

/** What a command freed by its caller's signal fails with (the request is gone; nobody reads the 503). */
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
// 'end' too: ioredis can give up by itself in a failover, and the stores connect it again (create-stores.ts);
// a client ended on purpose is ended through close() first, which lets everything go.
const LOOKING = new Set(['connecting', 'connect', 'reconnecting', 'close', 'end']);

/** The client's own AUTH/SELECT/INFO/ROLE on connecting: ioredis handles their failure itself. */
const isHandshake = (name: string): boolean => Command.checkFlag('HANDSHAKE_COMMANDS', name) || name === 'role';

/** A store command being issued in tries: what every try needs, and where the caller's answer goes. */
class Issued {
  readonly name: string;
  readonly args: Command['args'];
  /** The caller's own resolve and reject (a try given up is retired, its handlers replaced). */
  readonly deliver: Command['resolve'];
  readonly fail: Command['reject'];
  /** The try whose outcome counts; undefined once answered. */
  current: Command | undefined;
  /** Counted among the waiters (from its first failed try on). */
  counted = false;
  /** Connections lost when the current try was sent. */
  lossesAtSend = 0;
  constructor(
    readonly command: Command,
    readonly scope: StoreCall | undefined,
    readonly issuedAt: number,
  ) {
    this.name = command.name;
    this.args = command.args;
    this.deliver = command.resolve;
    this.fail = command.reject;
    this.current = command;
  }
}

/** Pause between a failed try and the next one (ioredis's own default for its failover retries). */
const RETRY_DELAY_MS = 100;
/** Tries failing less than this apart belong to one failover: its bound counts from the first. */
const QUIET_MS = 1000;

/**
 * Lets store commands ride out a failover (a lost connection, a Sentinel client asking for the new
 * master, a Cluster primary being replaced) instead of failing at once. Two parts, one bound:
 *
 * - **Held while the client is looking for its server.** ioredis's own offline queue does not fit: the
 *   command timeout is armed when a command is queued, so a queued command fails after
 *   REDIS_COMMAND_TIMEOUT_MS (800 ms), shorter than any failover, and the queue has no size bound. So a
 *   command issued while the client is not ready is held here, before ioredis sees it, until the client is
 *   ready again (then it goes out with its full command timeout, so a frozen server still fails fast).
 * - **Issued again when a try failed and provably did not run** (see reissue.ts: never written to a
 *   socket, or refused by the server: CLUSTERDOWN, TRYAGAIN…), **or is a read** (GET, MGET…) that met a
 *   lost connection. A Cluster client stays ready through a primary failover, so this is what rides it
 *   out. Each try is a fresh command with its own command timeout (ioredis arms one timeout per command,
 *   across all its own retries, which is why its retryDelayOnFailover cannot outlast a 2–3 s promotion);
 *   a try given up is retired so ioredis can never send it later. A write that may have run (written and
 *   then the connection lost, or timed out) is never sent again: it fails as before. A written command
 *   that timed out on a connection still up (a frozen server) fails at the command timeout, read or not.
 *
 * Both stop at `waitMs` after the trouble began (the connection lost, or the first failed try); then the
 * command fails as ioredis failed it, which the stores answer 503. At most `maxWaiters` commands wait or
 * retry at once; beyond, a new one fails at once. A command issued for a call (see `issuedFor`) stops
 * waiting when the call's signal aborts (the request's client left): its slot is free at once and it is
 * not sent again (it fails with ClientLeftError). A ready client that answers costs a few closures per command.
 */
export function rideOutFailover(client: Redis | Cluster, options: FailoverWaitOptions): FailoverWait {
  const now = options.now ?? Date.now;
  // A Redis never reached since start-up is not a failover: nothing waits, and readiness says so.
  let everReady = client.status === 'ready';
  let downSince: number | undefined = everReady ? undefined : now();
  // When tries began to fail in this failover, and when one last failed (a Cluster stays "ready").
  let troubleSince: number | undefined;
  let troubleLast = 0;
  // Connections lost so far: a try that timed out after one was lost did not meet a frozen server.
  let losses = 0;
  let waiters = 0;
  let closed = false;
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
  const onClose = (): void => {
    losses += 1;
    onLost();
  };
  client.on('ready', onReady);
  client.on('close', onClose);
  client.on('error', onLost);
  client.on('reconnecting', onLost);
  client.on('end', onLost);

  const original = client.sendCommand.bind(client) as SendCommand;

  const mustWait = (command: Command, stream: unknown): boolean => {
    // A Cluster client's own CLUSTER INFO/SLOTS, sent while it is not ready, is how it becomes ready.
    if (closed || !everReady || options.waitMs <= 0 || stream !== undefined || command.name === 'cluster') return false;
    const status = client.status;
    if (!LOOKING.has(status)) return false;
    // During the handshake the client sends its own AUTH/SELECT/INFO/ROLE; those must go through.
    if (status === 'connect' && isHandshake(command.name)) return false;
    return true;
  };

  /** Holds a command while the client looks for its server, then hands it to ioredis. */
  const hold = (
    command: Command,
    stream: unknown,
    node: unknown,
    scope: StoreCall | undefined,
    counted: boolean,
  ): Promise<unknown> => {
    if (client.status === 'ready' || !mustWait(command, stream)) return original(command, stream, node);
    if (downSince === undefined) downSince = now();
    const remaining = downSince + options.waitMs - now();
    if (remaining <= 0 || (!counted && waiters >= options.maxWaiters)) return original(command, stream, node);
    // Read here, where a command first has to wait (a caller's getter may make it now: store-call.ts).
    const signal = scope?.signal;
    if (signal?.aborted === true) {
      command.reject(new ClientLeftError());
      return command.promise;
    }
    if (!counted) waiters += 1;
    const release = (): boolean => {
      if (!wakers.delete(wake)) return false;
      if (!counted) waiters -= 1;
      clearTimeout(timer);
      signal?.removeEventListener('abort', onLeave);
      return true;
    };
    // Ready: it goes out now. Still down at the bound, or ended: ioredis refuses it as it did before.
    const wake = (): void => {
      if (release()) void original(command, stream, node).catch(() => undefined);
    };
    const onLeave = (): void => {
      if (release()) command.reject(new ClientLeftError());
    };
    wakers.add(wake);
    const timer = setTimeout(wake, remaining);
    signal?.addEventListener('abort', onLeave, { once: true });
    return command.promise;
  };

  /**
   * The bound of a command issued at `issuedAt`, counted from when the failover began. Failed tries more
   * than QUIET_MS after the last one belong to a new failover: an outage that outlasted the bound ends with
   * no try succeeding, and must not keep every later failover from being ridden out.
   */
  const deadline = (issuedAt: number): number => {
    const trouble = troubleSince !== undefined && now() - troubleLast <= QUIET_MS ? troubleSince : issuedAt;
    return Math.min(issuedAt, downSince ?? issuedAt, trouble) + options.waitMs;
  };

  const noteTrouble = (): void => {
    const at = now();
    if (troubleSince === undefined || at - troubleLast > QUIET_MS) troubleSince = at;
    troubleLast = at;
  };

  const isCluster = 'refreshSlotsCache' in client;

  /** Whether `attempt`, failed with `err`, may be followed by a fresh try. */
  const mayRetry = (issued: Issued, attempt: Command, err: Error): boolean => {
    if (err instanceof ClientLeftError || !isFailoverError(err) || closed) return false;
    if (mayHaveRun(attempt)) {
      // A write that may have run is never sent again (nothing runs twice).
      if (!isReadOnly(issued.name)) return false;
      // A read timed out on a connection still up: a frozen server fails at the command timeout.
      if (isTimeout(err) && client.status === 'ready' && losses === issued.lossesAtSend) return false;
    }
    return now() < deadline(issued.issuedAt) && (issued.counted || waiters < options.maxWaiters);
  };

  const finish = (issued: Issued): void => {
    issued.current = undefined;
    if (issued.counted) waiters -= 1;
    issued.counted = false;
  };

  const decide = (issued: Issued, attempt: Command, err: Error): void => {
    if (attempt !== issued.current) return;
    const retry = mayRetry(issued, attempt, err);
    retire(attempt);
    // Past the bound tries fail at once, not retried: still the same failover while they keep failing.
    if (!retry && troubleSince !== undefined && isFailoverError(err)) troubleLast = now();
    if (!retry) {
      finish(issued);
      issued.fail(err);
      return;
    }
    if (!issued.counted) waiters += 1;
    issued.counted = true;
    noteTrouble();
    const next = (): void => {
      if (!wakers.delete(next)) return;
      clearTimeout(timer);
      if (issued.scope?.signal?.aborted === true) {
        finish(issued);
        issued.fail(new ClientLeftError());
        return;
      }
      // A Cluster re-reads which node serves the slot (ioredis does the same before its own retries).
      if (isCluster) (client as Cluster).refreshSlotsCache();
      const fresh = freshTry(issued.name, issued.args, issued.command);
      issued.current = fresh;
      fresh.resolve = (value: unknown) => {
        // Answered: its command timeout must not fire later (see settle), whoever the answer is for.
        settle(fresh);
        if (fresh !== issued.current) return;
        finish(issued);
        troubleSince = undefined;
        // Shaped by this try (same name, same reply encoding): the caller's command, retired after its own
        // try failed, is a PING now, and its resolve shapes a reply by its name (see retire in reissue.ts).
        issued.deliver(fresh.transformReply(value as Buffer));
      };
      send(issued, fresh);
    };
    wakers.add(next);
    const timer = setTimeout(next, Math.max(0, Math.min(RETRY_DELAY_MS, deadline(issued.issuedAt) - now())));
  };

  /** One try: ioredis gets `attempt`; its final failure comes to `decide`, every refusal marks it unrun. */
  const send = (issued: Issued, attempt: Command): void => {
    issued.lossesAtSend = losses;
    attempt.reject = (err: Error) => decide(issued, attempt, err);
    void hold(attempt, undefined, undefined, issued.scope, issued.counted);
    // Outside the Cluster client's own handler (set in the call above), so every refusal is seen; a
    // standalone or Sentinel client keeps the handler set here, and reads it only when the try fails.
    const inner = attempt.reject;
    attempt.reject = (err: Error) => {
      noteRefusal(attempt, err);
      inner(err);
    };
  };

  /** Issues `command` in tries until one answers, one fails for good, or the bound. */
  const issue = (command: Command): Promise<unknown> => {
    const issued = new Issued(command, issuing, now());
    send(issued, command);
    return command.promise;
  };

  const patched: SendCommand = (command, stream, node) => {
    // Pipelines, transactions and a Cluster's node-directed tries are held only; never issued again.
    if (
      stream !== undefined ||
      node !== undefined ||
      !everReady ||
      options.waitMs <= 0 ||
      command.name === 'cluster' ||
      isHandshake(command.name)
    )
      return hold(command, stream, node, issuing, false);
    return issue(command);
  };
  (client as { sendCommand: SendCommand }).sendCommand = patched;

  return {
    withinBound: () =>
      client.status === 'ready' || (everReady && (downSince === undefined || now() - downSince < options.waitMs)),
    waiting: () => waiters,
    close() {
      client.off('ready', onReady);
      client.off('close', onClose);
      client.off('error', onLost);
      client.off('reconnecting', onLost);
      closed = true;
      client.off('end', onLost);
      wakeAll();
    },
  };
}
