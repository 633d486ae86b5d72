import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { freePort, startChild, type Child } from './processes.js';

export type CommandCounts = Record<string, number>;

/**
 * A private redis-server for the run: INFO commandstats then counts only the subjects' commands, not
 * those of whatever else shares the machine's Redis.
 */
export async function startPrivateRedis(logFile: string, cwd: string): Promise<{ url: string; child: Child }> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'bench-redis-'));
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir];
  const child = await startChild({
    name: 'redis-server',
    command: 'redis-server',
    args,
    env: process.env,
    cwd,
    logFile,
    ready: () => ping(port),
  });
  const stop = child.stop;
  child.stop = async () => {
    await stop();
    rmSync(dir, { recursive: true, force: true });
  };
  return { url: `redis://127.0.0.1:${port}`, child };
}

async function ping(port: number): Promise<boolean> {
  const client = new Redis({
    port,
    host: '127.0.0.1',
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  client.on('error', () => undefined);
  try {
    await client.connect();
    return (await client.ping()) === 'PONG';
  } finally {
    client.disconnect();
  }
}

/** Commands served so far by name (INFO itself left out: it is how we look). */
export async function commandCounts(redis: Redis): Promise<CommandCounts> {
  const text = await redis.info('commandstats');
  const counts: CommandCounts = {};
  for (const match of text.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) {
    const name = match[1] as string;
    if (name !== 'info') counts[name] = Number(match[2]);
  }
  return counts;
}

export function diffCounts(before: CommandCounts, after: CommandCounts): CommandCounts {
  const out: CommandCounts = {};
  for (const [name, n] of Object.entries(after)) {
    const delta = n - (before[name] ?? 0);
    if (delta > 0) out[name] = delta;
  }
  return out;
}

export const totalCount = (counts: CommandCounts): number => Object.values(counts).reduce((a, b) => a + b, 0);

/** Removes the keys a subject wrote, when the run used a Redis it does not own. */
export async function deletePrefix(redis: Redis, prefix: string): Promise<void> {
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
    if (keys.length > 0) await redis.del(...keys);
    cursor = next;
  } while (cursor !== '0');
}
