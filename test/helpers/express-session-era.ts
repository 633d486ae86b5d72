import type { Redis } from 'ioredis';
import signature from 'cookie-signature';
import { randomBytes } from 'node:crypto';

/**
 * How 0.1.x kept sessions, before the service owned its session layer: express-session (cookie) over
 * connect-redis 8.1 (record). The recorded values were captured from those libraries once
 * (name tgbff, secret "first-secret", the service's cookie options, connect-redis ttl 1800); the helpers
 * do what connect-redis 8.1's source does (dist/connect-redis.js), so tests need neither library.
 */
export const RECORDED = {
  secret: 'first-secret',
  sid: 'a5ytFGrS3pc40UAKfwfUz4dNQDL7fYzW',
  setCookie:
    'tgbff=s%3Aa5ytFGrS3pc40UAKfwfUz4dNQDL7fYzW.qVXTwLC%2F2WSAzeLqIHi0e39JltVBGSxnHSzixsmLq5E; Path=/; HttpOnly; SameSite=Strict',
  record:
    '{"cookie":{"originalMaxAge":null,"expires":null,"secure":false,"httpOnly":true,"path":"/","sameSite":"strict"},' +
    '"tg":{"secret":"v2.k1.sealed","graph":"social","createdAt":1700000000000}}',
  ttlSeconds: 1800,
} as const;

/** express-session's cookie value for `sid`: `s:` + cookie-signature, URI-encoded by the cookie package. */
export const expressSessionCookie = (name: string, sid: string, secret: string): string =>
  `${name}=${encodeURIComponent(`s:${signature.sign(sid, secret)}`)}`;

/** express-session's id: uid-safe(24), 32 base64url characters. */
export const expressSessionId = (): string => randomBytes(24).toString('base64url');

/** connect-redis 8.1's `_getTTL`: whole seconds to cookie.expires, rounded up, else its `ttl` option. */
export function connectRedisTtl(record: { cookie?: { expires?: string | Date | null } }, ttlOption: number): number {
  const expires = record.cookie?.expires;
  return expires ? Math.ceil((Number(new Date(expires)) - Date.now()) / 1000) : ttlOption;
}

/** connect-redis 8.1's `set` on ioredis: JSON.stringify, then SET key val EX ttl (DEL when ttl <= 0). */
export async function setAsConnectRedis(redis: Redis, key: string, record: object, ttlOption: number): Promise<void> {
  const ttl = connectRedisTtl(record, ttlOption);
  if (ttl > 0) await redis.set(key, JSON.stringify(record), 'EX', ttl);
  else await redis.del(key);
}

/** connect-redis 8.1's `get`: GET, then JSON.parse (null when absent). */
export async function getAsConnectRedis(redis: Redis, key: string): Promise<unknown> {
  const data = await redis.get(key);
  return data ? (JSON.parse(data) as unknown) : null;
}

/** connect-redis 8.1's `touch`: EXPIRE key ttl. */
export async function touchAsConnectRedis(redis: Redis, key: string, record: object, ttlOption: number): Promise<void> {
  await redis.expire(key, connectRedisTtl(record, ttlOption));
}
