import type { Redis } from 'ioredis';

/** Every key under `prefix` with its value as text (strings, hashes, sets, sorted sets, lists), names included. */
export async function dumpKeys(redis: Redis, prefix: string): Promise<string[]> {
  const out: string[] = [];
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
    for (const key of keys) out.push(`${key} ${await valueText(redis, key)}`);
    cursor = next;
  } while (cursor !== '0');
  return out;
}

async function valueText(redis: Redis, key: string): Promise<string> {
  switch (await redis.type(key)) {
    case 'string':
      return (await redis.get(key)) ?? '';
    case 'hash':
      return JSON.stringify(await redis.hgetall(key));
    case 'set':
      return (await redis.smembers(key)).join(' ');
    case 'zset':
      return (await redis.zrange(key, 0, -1, 'WITHSCORES')).join(' ');
    case 'list':
      return (await redis.lrange(key, 0, -1)).join(' ');
    default:
      return '';
  }
}

/**
 * The secrets, passwords and tokens that appear in plain text in any of `texts` (each as given, and
 * also JSON-escaped and URL-encoded, the spellings a log line or a stored blob would carry them in).
 */
export function leaked(texts: readonly string[], needles: Iterable<string>): string[] {
  const found = new Set<string>();
  for (const needle of needles) {
    if (needle.length < 8) continue; // short values occur by chance (and are no credential the tests use)
    const spellings = [needle, JSON.stringify(needle).slice(1, -1), encodeURIComponent(needle)];
    if (texts.some((text) => spellings.some((s) => text.includes(s)))) found.add(needle);
  }
  return [...found];
}
