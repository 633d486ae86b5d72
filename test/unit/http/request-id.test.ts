import request from 'supertest';
import { throughPipeline } from '../../helpers/pipeline-rig.js';
import { CLIENT_REQUEST_ID_MAX, clientRequestIdOf } from '../../../src/http/pipeline/request-id.js';
import type { TrustProxySetting } from '../../../src/http/pipeline/own-origin.js';

/** The pipeline in front of a handler that answers the ids it saw; supertest's requests come from loopback. */
function app(trustProxy: TrustProxySetting = false) {
  return throughPipeline(
    (_req, res, ctx) => {
      res.setHeader('Content-Type', 'application/json');
      res.end(JSON.stringify({ seen: ctx.requestId, client: ctx.clientRequestId ?? null }));
    },
    { trustProxy },
  );
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('request id', () => {
  it('when a client sends a safe X-Request-Id directly, then a fresh UUID is the id and its own is kept apart', async () => {
    const res = await request(app()).get('/').set('X-Request-Id', 'front-end.42:a_b-c');
    expect(res.status).toBe(200);
    expect(res.headers['x-request-id']).toMatch(UUID);
    expect(res.body).toEqual({ seen: res.headers['x-request-id'], client: 'front-end.42:a_b-c' });
  });

  it('when a trusted proxy passes on a safe X-Request-Id, then it is the id, stored and echoed', async () => {
    const res = await request(app('loopback')).get('/').set('X-Request-Id', 'front-end.42:a_b-c');
    expect(res.headers['x-request-id']).toBe('front-end.42:a_b-c');
    expect(res.body).toEqual({ seen: 'front-end.42:a_b-c', client: null });
  });

  it('when the peer is not among the trusted proxies, then its id is a client id', async () => {
    const res = await request(app('10.0.0.0/8')).get('/').set('X-Request-Id', 'balancer-7');
    expect(res.headers['x-request-id']).toMatch(UUID);
    expect(res.body.client).toBe('balancer-7');
  });

  it.each([
    ['contains spaces', 'two words', 'two words'],
    ['is too long', 'a'.repeat(129), `${'a'.repeat(128)}…`],
    ['carries markup', '<script>x</script>', '<script>x</script>'],
    ['carries a log-forging newline escape', 'id\\nlevel=error', 'id\\\\nlevel=error'],
  ])(
    'when a trusted proxy passes on an id that %s, then a fresh UUID replaces it and it is kept escaped',
    async (_why, given, kept) => {
      const res = await request(app('loopback')).get('/').set('X-Request-Id', given);
      expect(res.headers['x-request-id']).toMatch(UUID);
      expect(res.body).toEqual({ seen: res.headers['x-request-id'], client: kept });
    },
  );

  it('when no id is sent, then each request gets its own UUID and no client id', async () => {
    const a = app('loopback');
    const [one, two] = await Promise.all([request(a).get('/'), request(a).get('/')]);
    expect(one.headers['x-request-id']).toMatch(UUID);
    expect(two.headers['x-request-id']).toMatch(UUID);
    expect(one.headers['x-request-id']).not.toBe(two.headers['x-request-id']);
    expect(one.body.client).toBeNull();
  });

  it('when a trusted proxy passes on exactly 128 safe characters, then they are the id', async () => {
    const id = 'x'.repeat(128);
    const res = await request(app('loopback')).get('/').set('X-Request-Id', id);
    expect(res.headers['x-request-id']).toBe(id);
  });
});

describe('a client id as the access line keeps it', () => {
  it.each([
    ['tab', 'a\tb', 'a\\u0009b'],
    ['C1 next line', 'a\u0085b', 'a\\u0085b'],
    ['C1 control sequence introducer', 'a\u009b31mb', 'a\\u009b31mb'],
    ['line separator', 'a\u2028b', 'a\\u2028b'],
    ['paragraph separator', 'a\u2029b', 'a\\u2029b'],
    ['latin1 letter', 'caf\u00e9', 'caf\\u00e9'],
    ['backslash', 'a\\u0085', 'a\\\\u0085'],
    ['quote', 'a"b', 'a"b'],
  ])('when it carries a %s, then it is printable ASCII that says what came', (_what, given, kept) => {
    expect(clientRequestIdOf(given)).toBe(kept);
  });

  it('when it is huge, then the kept text stops at the cap and says it was cut', () => {
    const kept = clientRequestIdOf('\u0085'.repeat(100_000));
    expect(kept.endsWith('…')).toBe(true);
    expect(kept.length).toBeLessThanOrEqual(CLIENT_REQUEST_ID_MAX + 1);
    expect(kept.slice(0, -1)).toMatch(/^(\\u0085)+$/);
  });
});
