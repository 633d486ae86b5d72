import express from 'express';
import request from 'supertest';
import { forwardedFor } from '../../../src/http/pipeline/forwarded.js';
import type { TrustProxySetting } from '../../../src/http/pipeline/own-origin.js';

// The /api lane forwards X-Forwarded-* worked out without Express; they must be exactly what Express's
// req.ip / req.protocol / req.host give under the same `trust proxy` setting, or TRUST_PROXY would mean
// one thing on /auth and another on /api. Each request is answered with both, side by side.
function app(setting: TrustProxySetting) {
  const a = express();
  a.set('trust proxy', setting);
  const lane = forwardedFor(setting);
  a.get('/', (req, res) => {
    const { viaProxy, ...view } = lane(req);
    res.json({ express: { clientIp: req.ip, proto: req.protocol, host: req.host }, lane: view, viaProxy });
  });
  return a;
}

const SETTINGS: TrustProxySetting[] = [
  false,
  true,
  1,
  2,
  'loopback',
  '10.0.0.0/8',
  '127.0.0.1, 10.0.0.0/8',
  ['loopback', 'uniquelocal'],
];
const HEADERS: Array<Record<string, string>> = [
  {},
  { 'X-Forwarded-For': '203.0.113.7' },
  { 'X-Forwarded-For': '203.0.113.7, 10.1.2.3' },
  { 'X-Forwarded-For': '198.51.100.1, 203.0.113.7, 10.1.2.3' },
  { 'X-Forwarded-Proto': 'https', 'X-Forwarded-Host': 'bff.example.com:8443' },
  { 'X-Forwarded-Proto': 'https, http', 'X-Forwarded-Host': 'front.example.com, inner.example' },
  { 'X-Forwarded-Proto': '', 'X-Forwarded-Host': '' },
  { Host: 'named.example' },
];

describe.each(SETTINGS.map((s) => [JSON.stringify(s), s] as const))('trust proxy %s', (_name, setting) => {
  it.each(HEADERS.map((h) => [JSON.stringify(h), h] as const))(
    'when the request carries %s, then the lane agrees with Express',
    async (_h, headers) => {
      const res = await request(app(setting)).get('/').set(headers).expect(200);
      expect(res.body.lane).toEqual(res.body.express);
    },
  );
});

it('when the proxy is trusted, then the forwarded values are the ones the proxy wrote (a concrete check)', async () => {
  const res = await request(app('loopback'))
    .get('/')
    .set({ 'X-Forwarded-For': '203.0.113.7', 'X-Forwarded-Proto': 'https', 'X-Forwarded-Host': 'bff.example.com' })
    .expect(200);
  expect(res.body.lane).toEqual({ clientIp: '203.0.113.7', proto: 'https', host: 'bff.example.com' });
  expect(res.body.viaProxy).toBe(true);
});

it.each([
  [false, false],
  ['10.0.0.0/8', false],
  ['loopback', true],
  [1, true],
] as const)('when TRUST_PROXY is %s and the peer is loopback, then viaProxy is %s', async (setting, expected) => {
  const res = await request(app(setting)).get('/').expect(200);
  expect(res.body.viaProxy).toBe(expected);
});
