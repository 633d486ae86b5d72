import { readdirSync, readFileSync } from 'node:fs';
import type { Redis } from 'ioredis';

/** What is measured at the start and at the end of the soak. */
export interface Snapshot {
  atSec: number;
  rssMb: number | null;
  /** Open file descriptors of the BFF process (sockets, pipes, files), from /proc: nothing exposed by the service. */
  fds: number | null;
  p99Ms: number;
  rps: number;
  sessions: number;
  redisUsedBytes: number;
  /** (used_memory − used_memory before the BFF started) / live sessions. */
  redisBytesPerSession: number | null;
  /** MEMORY USAGE of every key under the prefix / live sessions. */
  keyBytesPerSession: number | null;
}

export function rssMb(pid: number): number | null {
  try {
    const match = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Math.round((Number(match[1]) / 1024) * 10) / 10 : null;
  } catch {
    return null;
  }
}

export function openFds(pid: number): number | null {
  try {
    return readdirSync(`/proc/${pid}/fd`).length;
  } catch {
    return null;
  }
}

export async function redisUsedBytes(redis: Redis): Promise<number> {
  return Number(/^used_memory:(\d+)/m.exec(await redis.info('memory'))?.[1] ?? NaN);
}

/**
 * Session blobs under `prefix`, and what every key under it takes (MEMORY USAGE: value, key and
 * overhead), tombstones and indexes included: the part of used_memory that grows with sessions.
 */
export async function sessionKeys(redis: Redis, prefix: string): Promise<{ sessions: number; keyBytes: number }> {
  let cursor = '0';
  let sessions = 0;
  let keyBytes = 0;
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
    sessions += keys.filter((k) => k.startsWith(`${prefix}sess:`)).length;
    const pipeline = redis.pipeline();
    for (const key of keys) pipeline.memory('USAGE', key, 'SAMPLES', '0');
    for (const [err, bytes] of (await pipeline.exec()) ?? []) if (!err) keyBytes += Number(bytes ?? 0);
    cursor = next;
  } while (cursor !== '0');
  return { sessions, keyBytes };
}
