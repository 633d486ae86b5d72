import type { SessionClient } from './session-client.js';
import { recordReader, sessionTtlSeconds, type SessionStore } from '../session-store.js';

/**
 * Sessions in Redis, byte for byte as connect-redis 8 kept them: JSON.stringify of the record, SET EX
 * with `sessionTtlSeconds`, EXPIRE on touch (thinned out by the hot path when the client has one).
 */
export function createRedisSessionStore(deps: { client: SessionClient; fallbackTtlSeconds: number }): SessionStore {
  const { client, fallbackTtlSeconds } = deps;
  const read = recordReader();
  return {
    async get(sid, options) {
      // `options` passed on whole: its signal is read only if a command has to wait (store-call.ts).
      return read(sid, await client.get(sid, options?.bypassCache === true, options));
    },
    async set(sid, record) {
      const ttl = sessionTtlSeconds(record, fallbackTtlSeconds);
      if (ttl > 0) await client.set(sid, JSON.stringify(record), ttl);
      else await client.del(sid);
    },
    async touch(sid, record) {
      await client.expire(sid, sessionTtlSeconds(record, fallbackTtlSeconds));
    },
    destroy: (sid) => client.del(sid),
  };
}
