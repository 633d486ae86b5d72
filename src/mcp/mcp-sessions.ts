import { createHash } from 'node:crypto';
import { AppError } from '../errors.js';
import type { RedisClient } from '../store/redis/client.js';
import { redisScript } from '../store/redis/script.js';

/**
 * MCP sessions (Mcp-Session-Id), kept per person so that any instance can serve any of them (a session made on
 * one instance is used on another: nothing of a session lives in a process) and one person's are bounded:
 *
 * - `<prefix>mcp:{<principal>}`: a sorted set of the person's session ids scored by their last use (ms); at
 *   most MCP_SESSIONS_PER_PRINCIPAL, the least recently used dropped by a new one; ids idle longer than
 *   MCP_SESSION_IDLE_TIMEOUT are gone (dropped when met, and the key expires with the last use);
 * - `<prefix>mcp:{<principal>}:out`: when the person signed out (ms): a bearer issued before it opens
 *   nothing, so an agent cannot start again with the token it held (lives OUT_TTL_MS);
 * - `<prefix>mcp-sid:{<hash of IdP sid>}`: the principal of an IdP session, for a back-channel logout that
 *   names only the session (lives as long as the person's sessions idle).
 *
 * The principal is the keyed credential id of the IdP subject (crypto/credential-id.ts), so no subject
 * appears in key names; a session id is looked up only among the presenting person's own, so another
 * person's id is simply unknown.
 */
export interface McpSessions {
  /** A new session; the least recently used beyond the cap are ended. Returns how many were. */
  open(principal: string, id: string, idpSid: string | undefined): Promise<number>;
  /** True (and its idle time starts again) when the person holds this live session. */
  touch(principal: string, id: string): Promise<boolean>;
  /** Ends one session; false when the person held none of that id. */
  end(principal: string, id: string): Promise<boolean>;
  /** Ends every session of the person and refuses bearers issued before now. */
  signOut(principal: string): Promise<void>;
  /** The principal an IdP session id was seen with, if any. */
  principalOfIdpSid(idpSid: string): Promise<string | undefined>;
  /** When the person last signed out (ms), or undefined. */
  signedOutAt(principal: string): Promise<number | undefined>;
}

/** A bearer that outlives a day is not an access token this endpoint should take anyway. */
export const OUT_TTL_MS = 24 * 3600 * 1000;

export interface McpSessionOptions {
  cap: number;
  idleMs: number;
  now: () => number;
}

const sidHash = (idpSid: string): string => createHash('sha256').update(idpSid).digest('base64url').slice(0, 32);

// KEYS[1] the set; ARGV now, idle ms, cap, id. Drops the idle, adds the id, pops the oldest beyond the cap.
const OPEN = redisScript(`
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', tonumber(ARGV[1]) - tonumber(ARGV[2]))
redis.call('ZADD', KEYS[1], ARGV[1], ARGV[4])
local over = redis.call('ZCARD', KEYS[1]) - tonumber(ARGV[3])
if over > 0 then redis.call('ZPOPMIN', KEYS[1], over) else over = 0 end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return over
`);

// KEYS[1] the set; ARGV now, idle ms, id. 1 when live (and touched), 0 when unknown or idle too long.
const TOUCH = redisScript(`
local at = redis.call('ZSCORE', KEYS[1], ARGV[3])
if not at then return 0 end
if tonumber(at) <= tonumber(ARGV[1]) - tonumber(ARGV[2]) then
  redis.call('ZREM', KEYS[1], ARGV[3])
  return 0
end
redis.call('ZADD', KEYS[1], 'XX', ARGV[1], ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1
`);

const storeDown = (cause: unknown): AppError => new AppError('store_unavailable', { cause, dependency: 'redis' });

export function redisMcpSessions(redis: RedisClient, prefix: string, opts: McpSessionOptions): McpSessions {
  const set = (principal: string) => `${prefix}mcp:{${principal}}`;
  const out = (principal: string) => `${prefix}mcp:{${principal}}:out`;
  const sidKey = (idpSid: string) => `${prefix}mcp-sid:{${sidHash(idpSid)}}`;
  const guarded = async <T>(op: () => Promise<T>): Promise<T> => {
    try {
      return await op();
    } catch (err) {
      throw storeDown(err);
    }
  };
  return {
    open: (principal, id, idpSid) =>
      guarded(async () => {
        const evicted = Number(await OPEN.run(redis, [set(principal)], [opts.now(), opts.idleMs, opts.cap, id]));
        if (idpSid !== undefined) await redis.set(sidKey(idpSid), principal, 'PX', opts.idleMs);
        return evicted;
      }),
    touch: (principal, id) =>
      guarded(async () => Number(await TOUCH.run(redis, [set(principal)], [opts.now(), opts.idleMs, id])) === 1),
    end: (principal, id) => guarded(async () => (await redis.zrem(set(principal), id)) === 1),
    signOut: (principal) =>
      guarded(async () => {
        await redis.set(out(principal), String(opts.now()), 'PX', OUT_TTL_MS);
        await redis.del(set(principal));
      }),
    principalOfIdpSid: (idpSid) => guarded(async () => (await redis.get(sidKey(idpSid))) ?? undefined),
    signedOutAt: (principal) =>
      guarded(async () => {
        const at = await redis.get(out(principal));
        return at === null ? undefined : Number(at);
      }),
  };
}

/** The same in this process only (the memory store mode: one instance, development). */
export function memoryMcpSessions(opts: McpSessionOptions): McpSessions {
  const sets = new Map<string, Map<string, number>>();
  const outs = new Map<string, number>();
  const sids = new Map<string, { principal: string; until: number }>();
  const live = (principal: string): Map<string, number> => {
    const s = sets.get(principal) ?? new Map<string, number>();
    const oldest = opts.now() - opts.idleMs;
    for (const [id, at] of s) if (at <= oldest) s.delete(id);
    if (s.size === 0) sets.delete(principal);
    return s;
  };
  return {
    open(principal, id, idpSid) {
      const s = live(principal);
      s.set(id, opts.now());
      sets.set(principal, s);
      let evicted = 0;
      for (const old of s.keys()) {
        if (s.size <= opts.cap) break;
        s.delete(old);
        evicted++;
      }
      if (idpSid !== undefined) sids.set(sidHash(idpSid), { principal, until: opts.now() + opts.idleMs });
      return Promise.resolve(evicted);
    },
    touch(principal, id) {
      const s = live(principal);
      if (!s.has(id)) return Promise.resolve(false);
      s.delete(id);
      s.set(id, opts.now());
      return Promise.resolve(true);
    },
    end: (principal, id) => Promise.resolve(live(principal).delete(id)),
    signOut(principal) {
      outs.set(principal, opts.now());
      sets.delete(principal);
      return Promise.resolve();
    },
    principalOfIdpSid(idpSid) {
      const found = sids.get(sidHash(idpSid));
      return Promise.resolve(found !== undefined && found.until > opts.now() ? found.principal : undefined);
    },
    signedOutAt: (principal) => Promise.resolve(outs.get(principal)),
  };
}
