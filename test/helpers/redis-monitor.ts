import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';

/** The commands Redis executed on keys under one prefix, as MONITOR reports them (lower-case names). */
export interface CommandWatch {
  /** Waits until every command sent before this call has been reported, then returns them all. */
  commands(): Promise<string[][]>;
  /** Forgets what was seen so far (after a settle, so nothing in flight leaks into the next count). */
  reset(): Promise<void>;
  stop(): void;
}

/**
 * MONITOR: only commands naming a key under `prefix` are kept. Use it on a redis-server of the test's own
 * (startRedisServer): on the shared one it would carry, and slow, every other test's commands too. A marker
 * GET under the prefix tells when the feed has caught up.
 */
export async function watchCommands(url: string, prefix: string): Promise<CommandWatch> {
  const control = new Redis(url);
  const monitor = await monitoring(url);
  let seen: string[][] = [];
  const waiting = new Map<string, () => void>();
  monitor.on('monitor', (_time: string, args: string[]) => {
    if (!args.some((arg) => String(arg).startsWith(prefix))) return;
    const marker = args[0]?.toLowerCase() === 'get' ? waiting.get(String(args[1])) : undefined;
    if (marker) return marker();
    seen.push([String(args[0]).toLowerCase(), ...args.slice(1).map(String)]);
  });
  const settle = async (): Promise<void> => {
    const key = `${prefix}monitor-marker:${randomUUID()}`;
    const arrived = new Promise<void>((resolve) => waiting.set(key, resolve));
    await control.get(key);
    await arrived;
    waiting.delete(key);
  };
  return {
    async commands() {
      await settle();
      return seen;
    },
    async reset() {
      await settle();
      seen = [];
    },
    stop() {
      monitor.disconnect();
      control.disconnect();
    },
  };
}

/**
 * A connection in MONITOR mode, as ioredis's `monitor()` opens one, but without its start-up race: ioredis
 * marks the connection as monitoring one microtask after MONITOR's OK, so feed lines that arrive in the same
 * chunk as the OK (another client busy meanwhile) find no command waiting and ioredis emits "Command queue
 * state error", which rejected `monitor()` (a store test's set-up failed so, on a loaded machine). Those
 * lines come from before the watch began and are dropped here; any other error still fails the start.
 */
async function monitoring(url: string): Promise<Redis> {
  const monitor = new Redis(url, { monitor: true });
  let started = false;
  await new Promise<void>((resolve, reject) => {
    monitor.once('monitoring', () => {
      started = true;
      resolve();
    });
    monitor.on('error', (err: Error) => {
      if (!started && err.message.startsWith('Command queue state error')) return;
      if (!started) {
        monitor.disconnect();
        reject(err);
      }
    });
  });
  return monitor;
}
