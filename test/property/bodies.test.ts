import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { FUZZ_TIMEOUT_MS, holds, runs, tallyLeaks } from './fuzz-budget.js';
import { dumpKeys, leaked } from './leak-scan.js';
import { rawRoundTrip } from '../helpers/raw-request.js';
import { startPropertyRig, type PropertyRig } from './property-rig.js';

/** The simulator's superuser: the admin routes' Basic auth passes with it, so valid bodies go through too. */
const ADMIN = Buffer.from('tigergraph:tigergraph').toString('base64');
const PASSWORD = 'fuzz-password-7f3a91';

const field = fc.constantFrom('secret', 'username', 'password', 'graph', 'alias', '__proto__', 'constructor', 'x');
const fieldValue = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  fc.constantFrom('social', 'tigergraph', PASSWORD, '', ' ', 'a'.repeat(2000), '1graph', 'g\u0000', 'é', '../x'),
);
/** Objects shaped like the real bodies but with wrong types, extra, missing and hostile fields. */
const shapedBody = fc.dictionary(field, fieldValue, { maxKeys: 5 }).map((o) => Buffer.from(JSON.stringify(o)));

/** Bodies that pass the schemas, so the credential checks behind them run too. */
const wellTyped = fc
  .oneof(
    fc.record({ secret: fc.string({ minLength: 1, maxLength: 40 }), graph: fc.constantFrom('social', null) }),
    fc.record({
      username: fc.constantFrom('tigergraph', 'fuzz_user', 'a'),
      password: fc.constantFrom(PASSWORD, 'wrong-password'),
      graph: fc.constantFrom('social', null),
    }),
    fc.record(
      { graph: fc.constant('social'), alias: fc.stringMatching(/^[a-z][a-z0-9_]{0,10}$/) },
      { requiredKeys: ['graph'] },
    ),
  )
  .map((o) => Buffer.from(JSON.stringify(o)));

const nested = fc
  .tuple(fc.integer({ min: 1, max: 20_000 }), fc.constantFrom('[', '{"a":'))
  .map(([depth, open]) => Buffer.from(open.repeat(depth) + (open === '[' ? ']' : '1}').repeat(depth)));
const huge = fc
  .tuple(fc.integer({ min: 15_000, max: 2_000_000 }), fc.constantFrom('secret', 'password'))
  .map(([n, key]) => Buffer.from(JSON.stringify({ [key]: 'x'.repeat(n), graph: 'social' })));
const invalidUtf8 = fc
  .tuple(fc.uint8Array({ minLength: 1, maxLength: 8 }), fc.constantFrom(0xff, 0xc0, 0xed, 0xf8))
  .map(([bytes, bad]) =>
    Buffer.concat([
      Buffer.from('{"secret":"'),
      Buffer.from(bytes),
      Buffer.from([bad, 0x80]),
      Buffer.from('","graph":"social"}'),
    ]),
  );
const garbage = fc.oneof(
  fc.uint8Array({ maxLength: 200 }).map((a) => Buffer.from(a)),
  fc.string({ maxLength: 100 }).map((s) => Buffer.from(s)),
  fc
    .constantFrom('', 'null', '[]', '"secret"', '{', '{"secret":', '1e999999', '{"secret":"a"}{"x":1}')
    .map((s) => Buffer.from(s)),
);
const body = fc.oneof(
  { weight: 4, arbitrary: shapedBody },
  { weight: 3, arbitrary: wellTyped },
  { weight: 2, arbitrary: garbage },
  { weight: 1, arbitrary: nested },
  { weight: 1, arbitrary: huge },
  { weight: 1, arbitrary: invalidUtf8 },
);

const contentType = fc.constantFrom(
  'application/json',
  'application/json',
  'application/json',
  'application/json',
  'application/json',
  'application/json; charset=utf-8',
  'APPLICATION/JSON',
  'application/json; charset=latin1',
  'application/json; charset=utf-16',
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/vnd.api+json',
  '',
  'json',
);
const route = fc.constantFrom(
  'POST /auth/login',
  'POST /auth/login',
  'POST /auth/login',
  'POST /admin/secrets',
  'POST /admin/secrets',
  'DELETE /admin/secrets/x',
  'GET /admin/secrets?graph=social',
  'POST /auth/logout',
);
const framing = fc.constantFrom('length', 'length', 'chunked', 'gzip');

describe('login, admin and password bodies (real app)', () => {
  let rig: PropertyRig;
  /** Secret values the admin route created and answered with: they must not be logged or stored in clear. */
  const created: string[] = [];
  beforeAll(async () => {
    rig = await startPropertyRig({
      env: { PASSWORD_LOGIN: 'true', ADMIN_ROUTES: 'true', LOGIN_RATE_LIMIT: '1000000', LOGIN_USER_LIMIT: '1000000' },
    });
  });
  afterAll(async () => rig?.close());

  it(
    'when any body is sent to the login, password or admin routes, in any content type or framing, then the answer is a 4xx JSON error or a success, never a 5xx, and the service keeps serving',
    async () => {
      await holds(
        'bodies: real app',
        fc.asyncProperty(
          route,
          body,
          contentType,
          framing,
          fc.boolean(),
          async (target, payload, type, frame, admin) => {
            const [method, path] = target.split(' ') as [string, string];
            const head = [
              `${method} ${path} HTTP/1.1`,
              'Host: 127.0.0.1',
              'X-Requested-With: XMLHttpRequest',
              'Connection: close',
              ...(type === '' ? [] : [`Content-Type: ${type}`]),
              ...(admin ? [`Authorization: Basic ${ADMIN}`] : []),
              ...(frame === 'chunked' ? ['Transfer-Encoding: chunked'] : [`Content-Length: ${payload.length}`]),
              ...(frame === 'gzip' ? ['Content-Encoding: gzip'] : []),
            ].join('\r\n');
            const framed =
              frame === 'chunked' && payload.length > 0
                ? Buffer.concat([
                    Buffer.from(`${payload.length.toString(16)}\r\n`),
                    payload,
                    Buffer.from('\r\n0\r\n\r\n'),
                  ])
                : frame === 'chunked'
                  ? Buffer.from('0\r\n\r\n')
                  : payload;
            const answer = await rawRoundTrip(rig.port, Buffer.concat([Buffer.from(`${head}\r\n\r\n`), framed]));
            expect(answer.status).toBeGreaterThanOrEqual(200);
            expect(answer.status).toBeLessThan(500);
            // The secret only: its alias is a name, logged by design (an alias TigerGraph made up once
            // counted as a leak here, AUTO_GENERATED_ALIAS_…).
            if (answer.status < 300 && path === '/admin/secrets') {
              const { secret } = JSON.parse(answer.body) as { secret?: unknown };
              if (typeof secret === 'string') created.push(secret);
            }
            if (answer.status >= 400) {
              expect(JSON.parse(answer.body)).toEqual({
                error: { code: expect.stringMatching(/^[a-z_]+$/), message: expect.any(String) },
              });
            }
          },
        ),
        { numRuns: runs(150, 1) },
      );
      const health = await rawRoundTrip(rig.port, 'GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
      expect(health.status).toBe(200);
    },
    FUZZ_TIMEOUT_MS,
  );

  it('when the runs are over, then no password, secret or token is in any Redis key or log line', async () => {
    const texts = [...(await dumpKeys(rig.redis, rig.prefix)), rig.logs()];
    const found = leaked(texts, [
      PASSWORD,
      'tigergraph:tigergraph',
      ADMIN,
      ...created.filter((v) => v.length >= 16),
      ...rig.sim.tokens().map((t) => t.token),
    ]);
    tallyLeaks('bodies', texts.length, found);
    expect(found).toEqual([]);
  });
});
