import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
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

/** The BFF's descriptors by what they are, so pooled connections (which come and go with load) are told apart from the rest. */
export interface FdKinds {
  /** Keep-alive connections to the data server: pooled, bounded by UPSTREAM_CONNECTIONS. */
  upstream: number;
  /** Accepted client connections: as many as the load generator keeps open. */
  clients: number;
  redis: number;
  /** Everything else: listening sockets, files, pipes, epoll and timers' descriptors, anything leaked. */
  other: number;
}

/** Classifies /proc/<pid>/fd sockets through /proc/<pid>/net/tcp{,6} (inode → ports); null without /proc. */
export function fdKinds(pid: number, ports: { bff: number; upstream: number; redis: number }): FdKinds | null {
  try {
    const byInode = new Map<string, { local: number; remote: number }>();
    for (const table of ['tcp', 'tcp6']) {
      for (const line of readFileSync(`/proc/${pid}/net/${table}`, 'utf8').trim().split('\n').slice(1)) {
        const f = line.trim().split(/\s+/);
        const port = (addr: string) => parseInt(addr.split(':')[1] as string, 16);
        byInode.set(f[9] as string, { local: port(f[1] as string), remote: port(f[2] as string) });
      }
    }
    const kinds: FdKinds = { upstream: 0, clients: 0, redis: 0, other: 0 };
    for (const fd of readdirSync(`/proc/${pid}/fd`)) {
      let link = '';
      try {
        link = readlinkSync(`/proc/${pid}/fd/${fd}`);
      } catch {
        continue; // closed between the listing and the look
      }
      const socket = /^socket:\[(\d+)\]$/.exec(link);
      const conn = socket ? byInode.get(socket[1] as string) : undefined;
      if (conn?.remote === ports.upstream) kinds.upstream++;
      else if (conn?.remote === ports.redis) kinds.redis++;
      else if (conn && conn.local === ports.bff && conn.remote !== 0) kinds.clients++;
      else kinds.other++;
    }
    return kinds;
  } catch {
    return null;
  }
}
