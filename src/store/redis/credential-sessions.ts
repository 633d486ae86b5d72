import type { SessionKeys } from '../keys.js';
import type { RedisClient } from './client.js';
import { redisScript } from './script.js';
import type { Guard } from '../store-error.js';
import { positiveMs } from '../ttl.js';
import type { CredentialSessionEntry, CredentialSessions } from '../types.js';

// Every session on record with its login time and text, oldest first, as triples; HMGET in parts, so a record
// at the largest cap (10,000 + 64 ids) stays within Lua's stack.
const ENTRIES = `
local function entries(ids)
  local out = {}
  for i = 1, #ids, 1000 do
    local part = {}
    for j = i, math.min(i + 999, #ids), 2 do part[#part + 1] = ids[j] end
    local infos = redis.call('HMGET', KEYS[2], unpack(part))
    for k = 1, #part do
      out[#out + 1] = part[k]
      out[#out + 1] = ids[i + 2 * (k - 1) + 1]
      out[#out + 1] = infos[k]
    end
  end
  return out
end`;

// Two keys under one `{credential id}` tag, so one slot on Cluster whatever the session ids are: the ids by
// login time, and the text beside each. Both live as long as the newest login (every session on record ends
// by then: the TTL is the absolute timeout), and never hold more than the ceiling: the oldest beyond it are
// dropped here, after being named to the caller with the rest.
const ADD = redisScript(`${ENTRIES}
redis.call('ZADD', KEYS[1], ARGV[1], ARGV[2])
if ARGV[6] ~= '' then redis.call('HSET', KEYS[2], ARGV[2], ARGV[6]) end
redis.call('PEXPIRE', KEYS[1], ARGV[3])
redis.call('PEXPIRE', KEYS[2], ARGV[3])
local n = redis.call('ZCARD', KEYS[1])
if n <= tonumber(ARGV[4]) then return {} end
local all = entries(redis.call('ZRANGE', KEYS[1], 0, -1, 'WITHSCORES'))
local ceiling = tonumber(ARGV[5])
if n > ceiling then
  local gone = redis.call('ZRANGE', KEYS[1], 0, n - ceiling - 1)
  redis.call('ZREMRANGEBYRANK', KEYS[1], 0, n - ceiling - 1)
  for i = 1, #gone, 1000 do redis.call('HDEL', KEYS[2], unpack(gone, i, math.min(i + 999, #gone))) end
end
return all`);

const LIST = redisScript(`${ENTRIES}
return entries(redis.call('ZRANGE', KEYS[1], 0, -1, 'WITHSCORES'))`);

// Only while the id is on record: an id another login ended and removed must not come back as text alone.
const UPDATE = redisScript(`
if not redis.call('ZSCORE', KEYS[1], ARGV[1]) then return 0 end
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
local ttl = redis.call('PTTL', KEYS[1])
if ttl > 0 then redis.call('PEXPIRE', KEYS[2], ttl) end
return 1`);

const REMOVE = redisScript(`
redis.call('ZREM', KEYS[1], unpack(ARGV))
redis.call('HDEL', KEYS[2], unpack(ARGV))
return 0`);

function asEntries(reply: unknown): CredentialSessionEntry[] {
  const flat = reply as Array<string | null>;
  const out: CredentialSessionEntry[] = [];
  for (let i = 0; i < flat.length; i += 3)
    out.push({ sid: flat[i] ?? '', at: Number(flat[i + 1]), info: flat[i + 2] ?? null });
  return out;
}

/** `<prefix>creds:{<credential id>}` (a sorted set of session ids scored by login time) and `creds-info:{…}` beside it. */
export function createRedisCredentialSessions(deps: {
  redis: RedisClient;
  keys: SessionKeys;
  guard: Guard;
}): CredentialSessions {
  const { redis, keys, guard } = deps;
  const both = (credential: string) => [keys.credentialSessions(credential), keys.credentialSessionInfo(credential)];
  return {
    async add(credential, sid, at, limits, info) {
      const args = [at, sid, positiveMs(limits.ttlMs), limits.cap, Math.max(limits.cap, limits.ceiling), info ?? ''];
      return asEntries(await guard(() => ADD.run(redis, both(credential), args)));
    },
    async update(credential, sid, info) {
      await guard(() => UPDATE.run(redis, both(credential), [sid, info]));
    },
    async remove(credential, sids) {
      // In parts, as a record at the largest cap could name more ids than Lua's stack holds.
      for (let i = 0; i < sids.length; i += 1000)
        await guard(() => REMOVE.run(redis, both(credential), sids.slice(i, i + 1000)));
    },
    async list(credential) {
      return asEntries(await guard(() => LIST.run(redis, both(credential), [])));
    },
  };
}
