import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import express, { type ErrorRequestHandler } from 'express';
import request from 'supertest';
import { RequestSession } from '../../../src/http/session/request-session.js';
import { sessionLookup } from '../../../src/http/session/session-lookup.js';
import { createRedisStores } from '../../../src/store/create-stores.js';
import { createCipher } from '../../../src/crypto/crypto.js';
import { createRedisClient, type RedisClient } from '../../../src/store/redis/client.js';
import type { Stores } from '../../../src/store/types.js';
import { connectRedisStore, expressSessionApp, RECORDED } from '../../helpers/express-session-era.js';
import { deleteKeysWithPrefix, uniquePrefix, sessionKey } from '../../helpers/redis-prefix.js';

// The session reader against what express-session and connect-redis 8 wrote in 0.1.x (recorded bytes, and
// the two libraries running for real as 0.1.x configured them, test/helpers/express-session-era.ts):
// whatever cookie and record they issued, the reader must accept, nothing else; and what our layer writes,
// they must read (a downgrade keeps it).
const prefix = uniquePrefix('session-lookup');
const NAME = 'tgbff';
let redis: RedisClient;
let stores: Stores;

beforeAll(async () => {
  redis = createRedisClient({ mode: 'standalone', url: 'redis://127.0.0.1:6379' });
  await redis.connect();
  stores = createRedisStores({
    redis,
    prefix,
    cipher: createCipher([{ id: 'k1', key: randomBytes(32) }]),
    sessionFallbackTtlSeconds: 60,
  });
});
afterAll(async () => {
  await deleteKeysWithPrefix(redis, prefix);
  await stores.close();
});

const sessionKeyOf = (sid: string): string => sessionKey(prefix, sid);
const standalone = (): import('ioredis').Redis => redis as import('ioredis').Redis;

function app(secrets: string[]) {
  const a = express();
  const lookup = sessionLookup({ store: stores.sessionStore, cookieName: NAME, secrets });
  a.get('/read', (req, res, next) => {
    const sid = lookup.sid(req.headers.cookie);
    if (sid === null) return void res.json({ sid: null, graph: null });
    lookup.load(sid).then((data) => {
      if (data === null) return void res.json({ sid: null, graph: null });
      res.once('finish', () => lookup.touch(sid, data));
      res.json({ sid, graph: (data as unknown as { graph?: string }).graph ?? null });
    }, next);
  });
  a.use(((err, _req, res, _next) =>
    res.status(503).json({ code: (err as { code?: string }).code })) as ErrorRequestHandler);
  return a;
}

/** A login on 0.1.x: express-session issues the id and signed cookie, connect-redis (ttl 60) writes the record. */
async function login(secrets: string[]): Promise<{ sid: string; cookie: string }> {
  const res = await request(expressSessionApp(connectRedisStore(standalone(), prefix, 60), secrets, NAME))
    .post('/login')
    .send({ graph: 'social' })
    .expect(200);
  const cookie = String(res.headers['set-cookie']?.[0]).split(';')[0]!;
  return { sid: (res.body as { sid: string }).sid, cookie };
}

test('when the cookie and record are the very bytes express-session and connect-redis 8 wrote, then the reader loads that session', async () => {
  await standalone().set(sessionKeyOf(RECORDED.sid), RECORDED.record, 'EX', RECORDED.ttlSeconds);
  const lookup = sessionLookup({ store: stores.sessionStore, cookieName: NAME, secrets: [RECORDED.secret] });
  const cookie = RECORDED.setCookie.split(';')[0]!;
  expect(lookup.sid(`other=1; ${cookie}`)).toBe(RECORDED.sid);
  expect(await lookup.load(RECORDED.sid)).toEqual(JSON.parse(RECORDED.record));
  const res = await request(app([RECORDED.secret]))
    .get('/read')
    .set('Cookie', `other=1; ${cookie}`)
    .expect(200);
  expect(res.body).toEqual({ sid: RECORDED.sid, graph: null });
});

test('when the cookie was signed with an older secret still listed, then it is accepted; once dropped, not', async () => {
  const { sid, cookie } = await login(['old-secret']);
  expect(
    (
      await request(app(['new-secret', 'old-secret']))
        .get('/read')
        .set('Cookie', cookie)
    ).body,
  ).toEqual({ sid, graph: 'social' });
  expect(
    (
      await request(app(['new-secret']))
        .get('/read')
        .set('Cookie', cookie)
    ).body,
  ).toEqual({ sid: null, graph: null });
});

test('when the signature is altered or the id is sent unsigned, then there is no session', async () => {
  const { sid, cookie } = await login(['first-secret']);
  const reader = app(['first-secret']);
  const forged = cookie.replace(/.$/, (c) => (c === 'A' ? 'B' : 'A'));
  expect((await request(reader).get('/read').set('Cookie', forged)).body.sid).toBeNull();
  expect((await request(reader).get('/read').set('Cookie', `${NAME}=${sid}`)).body.sid).toBeNull();
});

test('when the session was destroyed in the store, then the cookie alone gives no session', async () => {
  const { sid, cookie } = await login(['first-secret']);
  await redis.del(sessionKey(prefix, sid));
  expect(
    (
      await request(app(['first-secret']))
        .get('/read')
        .set('Cookie', cookie)
    ).body.sid,
  ).toBeNull();
});

test('when the answer has gone out, then the session TTL slides back to the idle timeout', async () => {
  const { sid, cookie } = await login(['first-secret']);
  const key = sessionKey(prefix, sid);
  await redis.pexpire(key, 5_000);
  await request(app(['first-secret']))
    .get('/read')
    .set('Cookie', cookie)
    .expect(200);
  // The touch is sent when the answer finishes; a round trip later it has landed.
  await redis.ping();
  expect(await redis.pttl(key)).toBeGreaterThan(55_000);
});

test('when a cookie verified a moment ago is sent again, then it still loads; a forged variant of it still does not', async () => {
  const { sid, cookie } = await login(['first-secret']);
  const reader = app(['first-secret']);
  expect((await request(reader).get('/read').set('Cookie', cookie)).body.sid).toBe(sid);
  expect((await request(reader).get('/read').set('Cookie', cookie)).body.sid).toBe(sid);
  const forged = cookie.replace(/.$/, (c) => (c === 'A' ? 'B' : 'A'));
  expect((await request(reader).get('/read').set('Cookie', forged)).body.sid).toBeNull();
  expect((await request(reader).get('/read').set('Cookie', `${cookie}x`)).body.sid).toBeNull();
});

test('when our session layer wrote the cookie and record at login, then a 0.1.x reader reads that same session (a downgrade keeps it)', async () => {
  const lookup = sessionLookup({ store: stores.sessionStore, cookieName: NAME, secrets: [RECORDED.secret] });
  const gate = () => Promise.reject(new Error('not used'));
  const tg = JSON.parse(RECORDED.record).tg as { secret: string; graph: string; createdAt: number };
  const ours = createServer((req, res) => {
    const current = new RequestSession(req, res, lookup, gate, { cookieName: NAME, cookieSecure: false });
    void current.regenerate().then(async (sid) => {
      await current.save(sid, tg);
      res.end(sid);
    });
  });
  const login = await request(ours).post('/login').expect(200);
  const sid = login.text;
  const setCookie = String(login.headers['set-cookie']?.[0]);
  // express-session itself reads the cookie and connect-redis the record: the same session, as it was saved.
  const downgraded = expressSessionApp(connectRedisStore(standalone(), prefix, 60), [RECORDED.secret], NAME);
  const read = await request(downgraded).get('/read').set('Cookie', setCookie.split(';')[0]!).expect(200);
  expect(read.body).toEqual({ sid, graph: null, tg });
  // Byte for byte what express-session set, apart from the id and its signature.
  const shape = (header: string) => header.replace(/^tgbff=[^;]*/, 'tgbff=<value>');
  expect(shape(setCookie)).toBe(shape(RECORDED.setCookie));
  expect(setCookie).toMatch(/^tgbff=s%3A[A-Za-z0-9_-]{32}\.[A-Za-z0-9%]+; /);
  // connect-redis's reading of the record, and the record byte for byte as it wrote it, SET with EX.
  expect(await connectRedisStore(standalone(), prefix, 60).get(sid)).toEqual({ ...JSON.parse(RECORDED.record), tg });
  expect(await redis.get(sessionKeyOf(sid))).toBe(RECORDED.record);
  const ttl = await redis.ttl(sessionKeyOf(sid));
  expect(ttl).toBeGreaterThan(58);
  expect(ttl).toBeLessThanOrEqual(60);
});
