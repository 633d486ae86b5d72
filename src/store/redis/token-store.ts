import { createHash } from 'node:crypto';
import type { Logger } from '../../observability/logger.js';
import type { SessionKeys } from '../keys.js';
import type { RedisClient } from './client.js';
import { redisScript } from './script.js';
import type { Guard } from '../store-error.js';
import { positiveMs } from '../ttl.js';
import { sealedAs } from '../../crypto/crypto.js';
import type { Cipher, TokenState, TokenStore } from '../types.js';

// One script so readers never see a half-written hash or a hash without its expiry. KEYS[2], the session's
// tombstone (same hash slot): once a session has ended nothing is written, so a refresh that loses the race
// with a logout on another instance cannot put a token back after the logout read and deleted it.
const SET = redisScript(`
if redis.call('EXISTS', KEYS[2]) == 1 then return 0 end
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], 't', ARGV[1], 'e', ARGV[2], 'v', ARGV[3], 'f', ARGV[4], 'r', ARGV[5])
if ARGV[7] ~= '' then redis.call('HSET', KEYS[1], 'w', ARGV[7]) end
redis.call('PEXPIRE', KEYS[1], ARGV[6])
return 1`);

// Compares a fingerprint, not the token: the stored token is encrypted with a random IV, and Lua cannot decrypt.
const DELETE_IF = redisScript(`
if redis.call('HGET', KEYS[1], 'f') == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`);

/** Tokens are high-entropy random strings, so a plain SHA-256 reveals nothing usable. */
const fingerprint = (token: string): string => createHash('sha256').update(token).digest('base64url');

export function createRedisTokenStore(deps: {
  redis: RedisClient;
  keys: SessionKeys;
  cipher: Cipher;
  guard: Guard;
  logger?: Logger;
}): TokenStore {
  const { redis, keys, cipher, guard, logger } = deps;
  return {
    async get(sid) {
      const raw = await guard(() => redis.hgetall(keys.token(sid)));
      if (!raw.t) return null;
      try {
        const state: TokenState = {
          token: cipher.decrypt(raw.t, sealedAs.token(sid)),
          expiresAt: Number(raw.e),
          version: Number(raw.v),
        };
        if (raw.w) state.renewWith = cipher.decrypt(raw.w, sealedAs.renewal(sid));
        return raw.r && raw.r !== '0' ? { ...state, replacedAt: Number(raw.r) } : state;
      } catch (err) {
        // Unreadable (key retired, value corrupted, or copied from another session): treat as no token, so
        // the broker mints this session's own.
        logger?.warn({ reason: (err as Error).message }, 'token state unreadable; ignoring it');
        return null;
      }
    },
    async set(sid, state: TokenState, ttlMs) {
      const args = [
        cipher.encrypt(state.token, sealedAs.token(sid)),
        state.expiresAt,
        state.version,
        fingerprint(state.token),
        state.replacedAt ?? 0,
      ];
      const renewWith = state.renewWith === undefined ? '' : cipher.encrypt(state.renewWith, sealedAs.renewal(sid));
      const written = await guard(() =>
        SET.run(redis, [keys.token(sid), keys.tombstone(sid)], [...args, positiveMs(ttlMs), renewWith]),
      );
      return written === 1;
    },
    async deleteIfToken(sid, token) {
      const deleted = await guard(() => DELETE_IF.run(redis, [keys.token(sid)], [fingerprint(token)]));
      return deleted === 1;
    },
    async delete(sid) {
      await guard(() => redis.del(keys.token(sid)));
    },
  };
}
