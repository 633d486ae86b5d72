import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import express, { type ErrorRequestHandler } from 'express';
import session from 'express-session';
import request from 'supertest';
import { RequestSession } from '../../../src/http/session/request-session.js';
import { sessionLookup } from '../../../src/http/session/session-lookup.js';
import '../../../src/http/session/session-data.js';
import { createRedisStores } from '../../../src/store/create-stores.js';
import { createCipher } from '../../../src/store/crypto.js';
import { createRedisClient, type RedisClient } from '../../../src/store/redis.js';
import type { Stores } from '../../../src/store/types.js';
import { deleteKeysWithPrefix, uniquePrefix } from '../../helpers/redis-prefix.js';

// The /api lane's session lookup against express-session itself: whatever cookie express-session issues
// and accepts, the lookup must accept, and nothing else.
const prefix = uniquePrefix('session-lookup');
const NAME = 'tgbff';
let redis: RedisClient;
let stores: Stores;

beforeAll(async () => {
  redis = createRedisClient({ mode: 'standalone', url: 'redis://127.0.0.1:6379' });
  await redis.connect();
  stores = createRedisStores({ redis, prefix, cipher: createCipher([{ id: 'k1', key: randomBytes(32) }]), sessionFallbackTtlSeconds: 60 });
});
afterAll(async () => {
  await deleteKeysWithPrefix(redis, prefix);
  await stores.close();
});

function app(secrets: string[]) {
  const a = express();
  a.post('/login', session({ name: NAME, secret: secrets, store: stores.sessionStore, resave: false, saveUninitialized: false }), (req, res) => {
    (req.session as unknown as { graph: string }).graph = 'social';
    res.json({ sid: req.sessionID });
  });
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
  a.use(((err, _req, res, _next) => res.status(503).json({ code: (err as { code?: string }).code })) as ErrorRequestHandler);
  return a;
}

async function login(secrets: string[]): Promise<{ sid: string; cookie: string }> {
  const res = await request(app(secrets)).post('/login').expect(200);
  return { sid: res.body.sid as string, cookie: String(res.headers['set-cookie']?.[0]).split(';')[0]! };
}

test('when express-session issued the cookie, then the lookup loads that same session', async () => {
  const { sid, cookie } = await login(['first-secret']);
  const res = await request(app(['first-secret'])).get('/read').set('Cookie', `other=1; ${cookie}`).expect(200);
  expect(res.body).toEqual({ sid, graph: 'social' });
});

test('when the cookie was signed with an older secret still listed, then it is accepted; once dropped, not', async () => {
  const { sid, cookie } = await login(['old-secret']);
  expect((await request(app(['new-secret', 'old-secret'])).get('/read').set('Cookie', cookie)).body).toEqual({ sid, graph: 'social' });
  expect((await request(app(['new-secret'])).get('/read').set('Cookie', cookie)).body).toEqual({ sid: null, graph: null });
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
  await redis.del(`${prefix}sess:{${sid}}`);
  expect((await request(app(['first-secret'])).get('/read').set('Cookie', cookie)).body.sid).toBeNull();
});

test('when the answer has gone out, then the session TTL slides back to the idle timeout', async () => {
  const { sid, cookie } = await login(['first-secret']);
  const key = `${prefix}sess:{${sid}}`;
  await redis.pexpire(key, 5_000);
  await request(app(['first-secret'])).get('/read').set('Cookie', cookie).expect(200);
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

test('when our session layer wrote the cookie and record at login, then express-session reads that same session (a downgrade keeps it)', async () => {
  const lookup = sessionLookup({ store: stores.sessionStore, cookieName: NAME, secrets: ['first-secret'] });
  const gate = () => Promise.reject(new Error('not used'));
  const tg = { secret: 'sealed', graph: 'social', createdAt: 1 };
  const ours = createServer((req, res) => {
    const current = new RequestSession(req, res, lookup, gate, { cookieName: NAME, cookieSecure: false });
    void current.regenerate().then(async (sid) => {
      await current.save(sid, tg);
      res.end(sid);
    });
  });
  const login = await request(ours).post('/login').expect(200);
  const theirs = express();
  const cookie = { httpOnly: true, secure: false, sameSite: 'strict' as const, path: '/' };
  theirs.use(session({ name: NAME, secret: ['first-secret'], store: stores.sessionStore, resave: false, saveUninitialized: false, cookie }));
  theirs.get('/whoami', (req, res) => void res.json({ sid: req.sessionID, tg: req.session.tg }));
  theirs.post('/issue', (req, res) => {
    req.session.tg = tg;
    res.end();
  });
  const setCookie = String(login.headers['set-cookie']?.[0]);
  const read = await request(theirs).get('/whoami').set('Cookie', setCookie.split(';')[0]!).expect(200);
  expect(read.body).toEqual({ sid: login.text, tg });
  // Byte for byte what express-session itself sets, apart from the id and its signature.
  const issued = String((await request(theirs).post('/issue').expect(200)).headers['set-cookie']?.[0]);
  const shape = (header: string) => header.replace(/^tgbff=[^;]*/, 'tgbff=<value>');
  expect(shape(setCookie)).toBe(shape(issued));
  expect(setCookie).toMatch(/^tgbff=s%3A[A-Za-z0-9_-]{32}\.[A-Za-z0-9%]+; /);
});
