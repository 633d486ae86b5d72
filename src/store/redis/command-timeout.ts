import { Redis, type Cluster, type Command } from 'ioredis';
import type { Logger } from '../../observability/logger.js';

type SendCommand = (command: Command, stream?: unknown, node?: unknown) => Promise<unknown>;

/** The part of an ioredis Command this touches (its timer field is what ioredis's own clean-up clears). */
interface TimedCommand {
  name: string;
  isResolved: boolean;
  reject(err: Error): void;
  setTimeout(ms: number): void;
  _commandTimeoutTimer?: NodeJS.Timeout;
}

/**
 * Whether a connection has gone silent: a command on it timed out and nothing has been received on it
 * since. Cleared by the next bytes Redis sends on that connection, when the connection closes (a lost
 * connection is failover-wait.ts's case, not this one), or one command timeout after it was marked.
 */
export interface Silence {
  readonly silent: boolean;
  /** A command was refused because of it (counted for the line logged when it ends). */
  refused(): void;
}

/** Where a connection's silence is reported: a warning when it begins, a notice when it ends. */
export interface SilenceLog {
  logger?: Logger | undefined;
  /** The connection's name in those lines (`redisConnection`): main, replica-acks, session-cache-tracked, ... */
  connection: string;
}

/** What a command refused on a silent connection fails with (it was never sent). */
export class SilentRedisError extends Error {
  constructor() {
    super('Redis has not answered since a command timed out on this connection; not sent');
    this.name = 'SilentRedisError';
  }
}

/** ioredis's own message for a command timeout, which the timeout armed here keeps. */
const TIMED_OUT = 'Command timed out';

/** A command that timed out, or was refused because an earlier one did: Redis is up but not answering. */
export const metSilence = (err: unknown): boolean =>
  err instanceof SilentRedisError || (err instanceof Error && err.message === TIMED_OUT);

const NEVER_SILENT: Silence = { silent: false, refused: () => undefined };

/**
 * ioredis's command timeout, except that a reply already waiting in the socket wins over it; and a
 * connection on which a command timed out is marked silent until Redis sends something on it again.
 *
 * ioredis arms REDIS_COMMAND_TIMEOUT_MS with a plain timer. When this process's event loop is held up past
 * the timeout (a burst of parallel logins on a loaded machine: 13 logins per process held it 120-370 ms on
 * a quiet 2-core machine, several times that under load), Node runs the expired timer in the timers phase,
 * before the poll phase that would read the reply Redis sent long ago: the command fails "Command timed
 * out" and the request 503s although Redis answered in microseconds. Here the timer's rejection waits one
 * `setImmediate`, which runs right after that poll phase: an answer already received resolves the command
 * first, and a Redis that did not answer still fails at the timeout (plus one loop turn).
 *
 * Per command this is one property assignment and a clock read; the timer is ioredis's own field, so ioredis clears it on
 * reply as before (were the field renamed, the timer would only fire late and find the command resolved).
 * The silence costs nothing while Redis answers: a 'data' listener is added to the socket only when a
 * command timed out, and removed by the first bytes after it. A Cluster's commands go to node connections
 * this does not see: its silence is never set (each of its commands waits its own timeout, as before).
 */
export function replyBeforeTimeout(client: Redis | Cluster, log?: SilenceLog): Silence {
  const original = client.sendCommand.bind(client) as SendCommand;
  const silence = client instanceof Redis ? watchSilence(client, log) : undefined;
  const arm = armTimeout(client, silence?.mark);
  const patched: SendCommand = (command, stream, node) => {
    (command as unknown as TimedCommand).setTimeout = arm;
    return original(command, stream, node);
  };
  (client as { sendCommand: SendCommand }).sendCommand = patched;
  return silence ?? NEVER_SILENT;
}

/**
 * While `silence` holds, a command issued on `client` fails at once (SilentRedisError; the stores answer
 * 503) instead of being sent to wait out a second command timeout: a request whose first store step timed
 * out on a frozen Redis (SIGSTOP, a partition) answers at that one timeout, whatever it issues next (a
 * fallback read, a best-effort clean-up), and so do the requests after it until Redis answers again or
 * the silence lapses (one command timeout; the next command then goes out and finds which).
 * Installed last (outermost, after failover-wait.ts), so a refused command never reaches the failover
 * wait, which would take an unsent command for one it may issue again. One boolean read per command.
 */
export function failFastWhileSilent(client: Redis | Cluster, silence: Silence): void {
  if (silence === NEVER_SILENT) return;
  const inner = client.sendCommand.bind(client) as SendCommand;
  const patched: SendCommand = (command, stream, node) => {
    if (!silence.silent) return inner(command, stream, node);
    silence.refused();
    command.reject(new SilentRedisError());
    return command.promise;
  };
  (client as { sendCommand: SendCommand }).sendCommand = patched;
}

/**
 * The silence of one connection. Marked only for the socket the timed-out command was written on: one that
 * fires after a reconnect (a failover) belongs to the old socket, and marking the new one would refuse
 * every command on it, so nothing would be sent and no byte would ever come back to clear it. And it lasts
 * one command timeout from the last command that timed out on that socket: then one command is sent again,
 * and either Redis answers (cleared) or it times out and marks it again. The commands that can still time
 * out once it is silent were sent before it began, so a wrong mark costs at most two timeouts of refusals.
 */
function watchSilence(
  client: Redis,
  log?: SilenceLog,
): Silence & { mark(on: unknown, ms: number, timedOut: TimedOut): void } {
  let listening: NodeJS.EventEmitter | undefined;
  /** When the silence lapses (epoch ms); 0: not silent. */
  let until = 0;
  /** When it began, and how many commands it refused since (for the line logged when it ends). */
  let since = 0;
  let refusals = 0;
  /** When the current connection became ready (how young it was when a command timed out on it). */
  let readyAt = 0;
  const state = {
    get silent(): boolean {
      if (until !== 0 && Date.now() >= until) clear('lapsed');
      return until !== 0;
    },
    refused(): void {
      refusals += 1;
    },
    mark(on: unknown, ms: number, timedOut: TimedOut): void {
      const stream = client.stream as NodeJS.EventEmitter | undefined;
      // No socket (or not yet ready): the connection is being made or lost, which is failover-wait.ts's case.
      if (stream === undefined || stream !== on || client.status !== 'ready') return;
      const now = Date.now();
      if (until === 0) {
        since = now;
        refusals = 0;
        // Once per silence, never the command's arguments (keys hold session ids): which command stalled,
        // after how long (more than the timeout: this process's event loop was held up too), on how young a
        // connection, and how many commands were waiting on it.
        log?.logger?.warn(
          {
            redisConnection: log.connection,
            command: timedOut.name,
            timeoutMs: ms,
            waitedMs: now - timedOut.armedAt,
            connectedForMs: readyAt === 0 ? undefined : now - readyAt,
            inFlight: (client as unknown as { commandQueue?: { length: number } }).commandQueue?.length,
          },
          'redis command timed out; commands on this connection fail at once until Redis answers on it',
        );
      }
      // Already silent: a command sent before the silence began timed out too, so it lasts one timeout from
      // this one (it would otherwise lapse while commands sent before it are still timing out, one by one).
      until = now + ms;
      if (listening === stream) return;
      listening = stream;
      stream.once('data', answered);
    },
  };
  function answered(): void {
    clear('answered');
  }
  function clear(why: 'answered' | 'lapsed' | 'closed'): void {
    if (until !== 0)
      log?.logger?.info(
        {
          redisConnection: log.connection,
          silentForMs: (why === 'lapsed' ? until : Date.now()) - since,
          refused: refusals,
          ended: why,
        },
        'redis connection no longer silent',
      );
    until = 0;
    listening?.off('data', answered);
    listening = undefined;
  }
  client.on('ready', () => {
    readyAt = Date.now();
  });
  client.on('close', () => clear('closed'));
  return state;
}

/** What the silence learns of the command that began it. */
interface TimedOut {
  name: string;
  armedAt: number;
}

/**
 * ioredis's `Command#setTimeout`, the rejection one `setImmediate` late (a reply already read wins); `mark`,
 * where given, learns the socket the timed-out command went out on.
 */
function armTimeout(client: Redis | Cluster, mark?: (on: unknown, ms: number, timedOut: TimedOut) => void) {
  return function arm(this: TimedCommand, ms: number): void {
    if (this._commandTimeoutTimer) return;
    // ioredis arms the timeout as it writes the command: the socket now is the one it goes out on.
    const on: unknown = mark && (client as Redis).stream;
    const armedAt = Date.now();
    this._commandTimeoutTimer = setTimeout(() => {
      setImmediate(() => {
        if (this.isResolved) return;
        mark?.(on, ms, { name: this.name, armedAt });
        this.reject(new Error(TIMED_OUT));
      });
    }, ms);
  };
}
