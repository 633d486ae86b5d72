import { exists, hasFlag } from '@ioredis/commands';
import { Command } from 'ioredis';

/**
 * Which store commands may be issued again after a try failed, and how a try is told apart from the
 * next one. Used by failover-wait.ts; nothing here waits or counts.
 *
 * A try is one ioredis Command. ioredis marks a command when it writes it to a socket (`isTraced`, below),
 * so a try without the mark provably never reached Redis. One with it may have run, unless the server
 * then refused it (a reply Redis sends instead of running the command: MOVED, ASK, TRYAGAIN,
 * CLUSTERDOWN, LOADING, READONLY, MASTERDOWN).
 */

/** Replies that mean "not run here": the command can go again, to the node the cluster names next. */
const REFUSED = /^(?:MOVED|ASK|TRYAGAIN|CLUSTERDOWN|LOADING|READONLY|MASTERDOWN)\b/;

/** An error Redis itself answered (ioredis's ReplyError), as opposed to a lost or timed-out connection. */
const isReply = (err: Error): boolean => err.name === 'ReplyError';

/** Redis answered the try and did not run it. */
export const wasRefused = (err: Error): boolean => isReply(err) && REFUSED.test(err.message);

/** A lost, refused or timed-out connection, or a refusal: what a failover looks like. Not a command's own error. */
export const isFailoverError = (err: Error): boolean => !isReply(err) || REFUSED.test(err.message);

export const isTimeout = (err: Error): boolean => err.message === 'Command timed out';

/** GET, MGET, PTTL, EXISTS…: running one twice changes nothing, so one that may have run can still go again. */
export const isReadOnly = (name: string): boolean => exists(name) && hasFlag(name, 'readonly');

/**
 * Written to a socket and not since refused: it may have run. ioredis sets `isTraced` on a command exactly
 * when it writes it (Redis#sendCommand's writable branch, once per command, for its tracing channel), so
 * the mark costs nothing; a refusal clears it, and the next write (to the node the cluster names next)
 * sets it again. test/integration/store/failover-wait.test.ts ("on the wire") fails if that ever changes.
 * An own property per command was tried first: about a third more CPU per command (more object shapes in
 * ioredis's hot paths).
 */
export const mayHaveRun = (command: Command): boolean => command.isTraced;

/** After a refusal the try did not run. */
export function noteRefusal(command: Command, err: Error): void {
  if (wasRefused(err)) command.isTraced = false;
}

/** The part of an ioredis Command (5.x) its timers read: both its command timeout and ours (command-timeout.ts). */
interface CommandTimer {
  isResolved: boolean;
  _commandTimeoutTimer?: NodeJS.Timeout;
}

/**
 * A try is done with: its command timeout can no longer fire. ioredis clears it only in the try's own
 * resolve and reject, and the tries here get handlers of their own (a fresh try's answer goes to its
 * caller's resolve; a try given up gets no-ops), so its timer used to stay armed and fire one command
 * timeout after the try was sent, answered or not. It then took the try for unanswered, and
 * command-timeout.ts marked the connection silent: after a failover, a read issued again and answered at
 * once had every command on the new connection refused (503) for up to one more timeout.
 */
export function settle(command: Command): void {
  const timed = command as unknown as CommandTimer;
  timed.isResolved = true;
  if (timed._commandTimeoutTimer === undefined) return;
  clearTimeout(timed._commandTimeoutTimer);
  delete timed._commandTimeoutTimer;
}

/** The internals a fresh try copies: the args are already transformed and stringified, keys prefixed. */
interface CommandInternals {
  replyEncoding?: BufferEncoding | null;
  bufferMode?: boolean;
}

/**
 * A fresh try of `command` (own promise, own command timeout, own redirection budget), same class, name
 * and args.
 */
export function freshTry(name: string, args: Command['args'], of: Command): Command {
  const inner = of as unknown as CommandInternals;
  const Kind = of.constructor as typeof Command;
  const next = new Kind(name, [], { replyEncoding: inner.replyEncoding ?? null });
  next.args = args;
  (next as unknown as CommandInternals).bufferMode = inner.bufferMode;
  return next;
}

/**
 * A try that is given up (failed, or superseded by a fresh one) may still sit in one of ioredis's queues
 * (a Cluster's delay queue after CLUSTERDOWN, a node's offline queue) and be written later, after its
 * caller was answered. It becomes a PING: harmless if it goes, and its reply still pairs with it. Its
 * outcome was seen (it failed), so its command timeout is cleared (`settle`).
 *
 * The caller's own command is retired too when its first try fails, and its resolve shapes what it is given
 * by the name it has then (ioredis's transformReply: HGETALL's list into an object). So a later try's answer
 * reaches it shaped already (failover-wait.ts), which a PING's shaping leaves as it is.
 */
export function retire(command: Command): void {
  settle(command);
  command.name = 'ping';
  command.args = [];
  // Written as a plain command: a script's own toWritable would turn it back into an EVAL.
  command.toWritable = Command.prototype.toWritable;
  command.resolve = () => undefined;
  command.reject = () => undefined;
}
