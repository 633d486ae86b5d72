import type { Cluster, Command, Redis } from 'ioredis';

type SendCommand = (command: Command, stream?: unknown, node?: unknown) => Promise<unknown>;

/** The part of an ioredis Command this touches (its timer field is what ioredis's own clean-up clears). */
interface TimedCommand {
  isResolved: boolean;
  reject(err: Error): void;
  setTimeout(ms: number): void;
  _commandTimeoutTimer?: NodeJS.Timeout;
}

/**
 * ioredis's command timeout, except that a reply already waiting in the socket wins over it.
 *
 * ioredis arms REDIS_COMMAND_TIMEOUT_MS with a plain timer. When this process's event loop is held up past
 * the timeout (a burst of parallel logins on a loaded machine: 13 logins per process held it 120-370 ms on
 * a quiet 2-core machine, several times that under load), Node runs the expired timer in the timers phase,
 * before the poll phase that would read the reply Redis sent long ago: the command fails "Command timed
 * out" and the request 503s although Redis answered in microseconds. Here the timer's rejection waits one
 * `setImmediate`, which runs right after that poll phase: an answer already received resolves the command
 * first, and a Redis that did not answer still fails at the timeout (plus one loop turn).
 *
 * Per command this is one property assignment; the timer is ioredis's own field, so ioredis clears it on
 * reply as before (were the field renamed, the timer would only fire late and find the command resolved).
 */
export function replyBeforeTimeout(client: Redis | Cluster): void {
  const original = client.sendCommand.bind(client) as SendCommand;
  const patched: SendCommand = (command, stream, node) => {
    (command as unknown as TimedCommand).setTimeout = armTimeout;
    return original(command, stream, node);
  };
  (client as { sendCommand: SendCommand }).sendCommand = patched;
}

function armTimeout(this: TimedCommand, ms: number): void {
  if (this._commandTimeoutTimer) return;
  this._commandTimeoutTimer = setTimeout(() => {
    setImmediate(() => {
      if (!this.isResolved) this.reject(new Error('Command timed out'));
    });
  }, ms);
}
