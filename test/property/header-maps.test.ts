import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { IncomingMessage, ServerResponse, type IncomingHttpHeaders } from 'node:http';
import { Socket } from 'node:net';
import fc from 'fast-check';
import { DEFAULT_FORWARD_HEADERS, HeaderPolicy, NEVER_FORWARDED } from '../../src/relay/header-policy.js';
import { FUZZ_TIMEOUT_MS, holds, runs, tallyLeaks } from './fuzz-budget.js';
import { dumpKeys, leaked } from './leak-scan.js';
import { rawRoundTrip } from '../helpers/raw-request.js';
import { bearers, loginCookie, startPropertyRig, type PropertyRig } from './property-rig.js';

const CSRF_HEADER = 'X-Requested-With';

const CREDENTIALS = ['cookie', 'authorization', 'proxy-authorization', 'x-requested-with'];
const HOP_BY_HOP = ['connection', 'keep-alive', 'te', 'trailer', 'transfer-encoding', 'upgrade'];

/** Names browsers, proxies and attackers send, in any case, plus arbitrary token-shaped names. */
const headerName = fc.oneof(
  fc.constantFrom(
    ...NEVER_FORWARDED,
    ...DEFAULT_FORWARD_HEADERS,
    ...CREDENTIALS,
    'x-csrf',
    'gsql-async',
    'gsql-thread-limit',
    'origin',
    'x-api-key',
  ),
  fc.stringMatching(/^[a-z][a-z0-9-]{0,12}$/),
);
const mixedCase = (name: fc.Arbitrary<string>) => name.chain((n) => fc.mixedCase(fc.constant(n)));
const headerValue = fc.oneof(
  fc.constantFrom(
    'keep-alive',
    'close',
    'cookie, authorization',
    'Accept, x-requested-with',
    'application/json',
    'Bearer stolen',
    'sid=abc',
  ),
  fc.stringMatching(/^[\x21-\x7e][\x20-\x7e]{0,20}$/),
);

/** What Node hands a handler: lower-case names, a repeated header as an array or a joined string. */
const incomingHeaders = fc
  .array(fc.tuple(headerName, fc.array(headerValue, { minLength: 1, maxLength: 3 })), { maxLength: 12 })
  .map((pairs) => {
    const headers: IncomingHttpHeaders = {};
    for (const [name, values] of pairs) headers[name] = values.length === 1 ? values[0]! : values;
    return headers;
  });

describe('header maps (pure): the relay header policy', () => {
  const policy = new HeaderPolicy(CSRF_HEADER, ['x-api-key']);

  it('when a browser sends any header map, then upstream gets no browser credential, framing or override header and exactly one Authorization, the BFF token', async () => {
    await holds(
      'header maps: upstream',
      fc.property(incomingHeaders, (incoming) => {
        const out = policy.upstream(incoming, 'the-token', 'rid', {
          clientIp: '10.0.0.1',
          proto: 'https',
          host: 'bff',
        });
        const names = out.filter((_, i) => i % 2 === 0);
        const forwardable = new Set([
          ...DEFAULT_FORWARD_HEADERS,
          'x-api-key',
          'authorization',
          'x-request-id',
          'x-forwarded-proto',
          'x-forwarded-for',
          'x-forwarded-host',
        ]);
        for (const name of names) expect(forwardable.has(name)).toBe(true);
        expect(names.filter((n) => n === 'authorization')).toEqual(['authorization']);
        expect(out[out.indexOf('authorization') + 1]).toBe('Bearer the-token');
        for (const name of ['cookie', 'x-requested-with', 'host', 'content-length', ...HOP_BY_HOP])
          expect(names).not.toContain(name);
        for (const name of names.filter((n) => DEFAULT_FORWARD_HEADERS.includes(n)))
          expect(incoming[name]).toBeDefined();
      }),
      { numRuns: runs(1000) },
    );
  });

  const upstreamAnswer = fc
    .array(
      fc.tuple(
        fc.oneof(
          fc.constantFrom(
            'set-cookie',
            'set-cookie2',
            'authorization',
            'access-control-allow-origin',
            'proxy-authenticate',
            'x-leak',
            ...HOP_BY_HOP,
          ),
          headerName,
        ),
        fc.oneof(headerValue, fc.constant('a the-token b')),
      ),
      { maxLength: 10 },
    )
    .map((pairs) => Object.fromEntries(pairs) as IncomingHttpHeaders);

  it('when the data server answers any header map, then the browser gets no Set-Cookie, hop-by-hop, Authorization or CORS header and never the token', async () => {
    await holds(
      'header maps: downstream',
      fc.property(upstreamAnswer, (answer) => {
        const res = new ServerResponse(new IncomingMessage(new Socket()));
        policy.downstream(answer, res, 'the-token');
        const names = res.getHeaderNames();
        for (const name of ['set-cookie', 'set-cookie2', 'authorization', ...HOP_BY_HOP])
          expect(names).not.toContain(name);
        expect(names.filter((n) => n.startsWith('access-control-') || n.startsWith('proxy-'))).toEqual([]);
        expect(JSON.stringify(res.getHeaders())).not.toContain('the-token');
      }),
      { numRuns: runs(1000) },
    );
  });
});

/** Header lines as a browser, a proxy or an attacker writes them on the wire: any case, repeated, CRLF tricks. */
const wireHeader = fc.oneof(
  fc.tuple(mixedCase(headerName), headerValue).map(([n, v]) => `${n}: ${v}`),
  fc.constantFrom(
    'Cookie: tgbff=forged',
    'cOoKiE: a=b',
    'Authorization: Basic dGlnZXJncmFwaDp0aWdlcmdyYXBo',
    'X-Foo: a\r\nCookie: injected=1',
    'X-Foo: a\nAuthorization: Bearer injected',
    'X-Foo: a\rb',
    'X-Foo: a\r\n Authorization: folded',
    'Connection: x-keep, cookie',
    'Transfer-Encoding: identity',
    'X-HTTP-Method-Override: DELETE',
    'X-Original-URL: /requesttoken',
    'Host: evil.example',
    'Accept: application/json\u0000',
  ),
);

const setCookieSpellings = fc.constantFrom('Set-Cookie', 'set-cookie', 'SET-COOKIE', 'sEt-CoOkIe', 'Set-Cookie2');

describe('header maps (real app): what crosses the relay each way', () => {
  let rig: PropertyRig;
  let cookie: string;
  let secret: string;
  beforeAll(async () => {
    rig = await startPropertyRig({ env: { RELAY_FORWARD_HEADERS: 'x-api-key' } });
    secret = rig.sim.createSecret({ alias: 'headers' }).value;
    cookie = await loginCookie(rig, secret);
  });
  afterAll(async () => rig?.close());

  it(
    'when a logged-in browser relays with any header lines and the data server answers with any Set-Cookie spelling and the token echoed, then neither crosses',
    async () => {
      await holds(
        'header maps: real app',
        fc.asyncProperty(
          fc.array(wireHeader, { maxLength: 8 }),
          fc.array(setCookieSpellings, { minLength: 1, maxLength: 3 }),
          async (lines, cookieNames) => {
            rig.inject.splice(
              0,
              rig.inject.length,
              ...cookieNames.map((n): [string, string] => [n, 'tg=upstream; Path=/']),
            );
            rig.inject.push(['X-Echo', 'token {token}']);
            const before = rig.tapped.length;
            const extra = lines.map((l) => `${l}\r\n`).join('');
            const answer = await rawRoundTrip(
              rig.port,
              // Content-Length: 0 ends the request whatever framing the lines claim (a claimed body would be waited for).
              `GET /api/echo HTTP/1.1\r\nHost: 127.0.0.1\r\n${extra}Cookie: ${cookie}\r\nX-Requested-With: XMLHttpRequest\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`,
            );
            const data = rig.tapped.slice(before).filter((t) => !t.url.startsWith('/requesttoken'));
            for (const sent of data) {
              const names = sent.headers.map(([n]) => n.toLowerCase());
              for (const name of [
                'cookie',
                'x-requested-with',
                'x-http-method-override',
                'x-original-url',
                'transfer-encoding',
              ])
                expect(names).not.toContain(name);
              const auth = sent.headers.filter(([n]) => n.toLowerCase() === 'authorization');
              expect(auth).toHaveLength(1);
              expect(auth[0]![1]).toMatch(/^Bearer [^\s]+$/);
              expect(auth[0]![1]).not.toContain('injected');
            }
            expect(answer.status).toBeLessThan(500);
            expect(answer.headers.has('set-cookie')).toBe(false);
            expect(answer.headers.has('set-cookie2')).toBe(false);
            expect(answer.headers.has('x-echo')).toBe(false);
            const shown = JSON.stringify([...answer.headers]);
            for (const sent of data)
              for (const [n, v] of sent.headers)
                if (n.toLowerCase() === 'authorization') expect(shown).not.toContain(v.slice(7));
            // Nothing relayed: Node refused the header block (400), a forged cookie displaced the session (401), a foreign Origin (403), or Node's own 417 for an Expect it does not know.
            if (data.length === 0) expect([400, 401, 403, 417]).toContain(answer.status);
          },
        ),
        { numRuns: runs(200, 0.2) },
      );
      rig.inject.length = 0;
    },
    FUZZ_TIMEOUT_MS,
  );

  it('when the runs are over, then no secret or token is in any Redis key or log line', async () => {
    const texts = [...(await dumpKeys(rig.redis, rig.prefix)), rig.logs()];
    const found = leaked(texts, [secret, ...bearers(rig), ...rig.sim.tokens().map((t) => t.token)]);
    tallyLeaks('header maps', texts.length, found);
    expect(found).toEqual([]);
  });
});
