import { Cluster } from 'ioredis';
import type { SessionKeys } from './keys.js';
import type { RedisClient } from './redis.js';
import type { Guard } from './store-error.js';

/**
 * The slice of an ioredis client that connect-redis 8 calls, with its keys (which are bare session ids,
 * because connect-redis is given prefix "") mapped to `<prefix>sess:{sid}`. connect-redis can only
 * prepend; the hash tag needs braces around the id. It must not expose `scanIterator` or `masters`, or
 * connect-redis would take it for a node-redis client.
 */
export interface SessionClient {
  get(sid: string): Promise<string | null>;
  set(sid: string, value: string, ex?: 'EX', ttlSeconds?: number): Promise<string | null>;
  expire(sid: string, ttlSeconds: number): Promise<number>;
  del(sids: string | string[]): Promise<number>;
  mget(sids: string[]): Promise<Array<string | null>>;
  scan(cursor: string, ...args: Array<string | number>): Promise<[string, string[]]>;
}

export function createSessionClient(deps: { redis: RedisClient; keys: SessionKeys; guard: Guard }): SessionClient {
  const { redis, keys, guard } = deps;
  const keyPrefix = keys.session('').slice(0, -1); // `<prefix>sess:{`
  const toSid = (key: string): string => key.slice(keyPrefix.length, -1);

  return {
    get: (sid) => guard(() => redis.get(keys.session(sid))),
    set: (sid, value, _ex, ttlSeconds) =>
      guard(() =>
        ttlSeconds === undefined ? redis.set(keys.session(sid), value) : redis.set(keys.session(sid), value, 'EX', ttlSeconds),
      ),
    expire: (sid, ttlSeconds) => guard(() => redis.expire(keys.session(sid), ttlSeconds)),
    // One DEL per key: a multi-key DEL would cross slots on Cluster.
    del: (sids) =>
      guard(async () => {
        const counts = await Promise.all([sids].flat().map((sid) => redis.del(keys.session(sid))));
        return counts.reduce((sum, n) => sum + n, 0);
      }),
    mget: (sids) => guard(() => Promise.all(sids.map((sid) => redis.get(keys.session(sid))))),
    scan: (cursor, ...args) =>
      guard(async () => {
        const pattern = `${globEscape(keyPrefix)}${String(optionAfter(args, 'MATCH') ?? '*')}}`;
        const count = Number(optionAfter(args, 'COUNT') ?? 100);
        const [next, found] = await scanKeys(redis, cursor, pattern, count);
        return [next, found.map(toSid)];
      }),
  };
}

/** Cluster has no global cursor, so walk every master to the end in one call (admin use only). */
async function scanKeys(redis: RedisClient, cursor: string, pattern: string, count: number): Promise<[string, string[]]> {
  if (!(redis instanceof Cluster)) return redis.scan(cursor, 'MATCH', pattern, 'COUNT', count);
  const found: string[] = [];
  for (const node of redis.nodes('master')) {
    let nodeCursor = '0';
    do {
      const [next, batch] = await node.scan(nodeCursor, 'MATCH', pattern, 'COUNT', count);
      found.push(...batch);
      nodeCursor = next;
    } while (nodeCursor !== '0');
  }
  return ['0', found];
}

function optionAfter(args: Array<string | number>, name: string): string | number | undefined {
  const at = args.findIndex((arg) => String(arg).toUpperCase() === name);
  return at >= 0 ? args[at + 1] : undefined;
}

const globEscape = (text: string): string => text.replace(/[*?[\]\\]/g, '\\$&');
