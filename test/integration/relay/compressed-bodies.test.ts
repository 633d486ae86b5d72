import { afterEach, describe, expect, it } from '@jest/globals';
import { gzipSync } from 'node:zlib';
import { DEFAULT_RELAY_ALLOW } from '../../../src/relay/allowlist.js';
import { CSRF, startRig, type Rig } from '../../helpers/app-rig.js';

/**
 * Compressed request bodies are bounded by what they inflate to (issue 42, item 7): by default a body with a
 * Content-Encoding is refused with 415 before any token call or upstream request; with RELAY_COMPRESSED_BODIES it
 * is inflated to check its size against MAX_BODY_BYTES (a gzip bomb is 413 and reaches nobody), and a body within
 * the bound is forwarded as sent.
 */
const MAX = 64 * 1024;
/** Upserts opened, as an operator would for an app that writes. */
const WRITES = `${DEFAULT_RELAY_ALLOW},POST /graph/`;
const upserts = (rig: Rig) => rig.sim.seen().filter((s) => s.method === 'POST' && s.path === '/graph/social');
const bomb = gzipSync(Buffer.alloc(50 * MAX, ' ')); // 3.2 MB of spaces, a few KB on the wire
const small = gzipSync(Buffer.from(JSON.stringify({ vertices: { Person: { zed: {} } } })));

/** Logs in over a real socket and returns a POST of raw bytes (supertest would serialise a Buffer as JSON). */
async function rawPoster(rig: Rig) {
  const base = await rig.listen();
  const login = await fetch(`${base}/auth/login`, {
    method: 'POST',
    headers: { ...CSRF, 'Content-Type': 'application/json' },
    body: JSON.stringify({ secret: rig.secret, graph: 'social' }),
  });
  expect(login.status).toBe(200);
  const cookie = login.headers
    .getSetCookie()
    .map((line) => line.split(';')[0]!)
    .join('; ');
  return async (body: Buffer) => {
    const res = await fetch(`${base}/api/graph/social`, {
      method: 'POST',
      headers: { ...CSRF, Cookie: cookie, 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' },
      body,
    });
    const text = await res.text();
    return { status: res.status, body: (text === '' ? {} : JSON.parse(text)) as { error?: { code?: string } } };
  };
}

describe('compressed request bodies', () => {
  let rig: Rig;
  afterEach(() => rig.close());

  it('when compressed bodies are not allowed, then a gzip body is 415 unsupported_encoding and nothing is sent', async () => {
    rig = await startRig({ store: 'memory', env: { MAX_BODY_BYTES: String(MAX), RELAY_ALLOW: WRITES } });
    const post = await rawPoster(rig);
    const res = await post(small);
    expect(res).toMatchObject({ status: 415, body: { error: { code: 'unsupported_encoding' } } });
    expect(upserts(rig)).toEqual([]);
  });

  it('when allowed, then a body that inflates past MAX_BODY_BYTES is 413 and one within it is forwarded as sent', async () => {
    rig = await startRig({
      store: 'memory',
      env: { MAX_BODY_BYTES: String(MAX), RELAY_COMPRESSED_BODIES: 'true', RELAY_ALLOW: WRITES },
    });
    const post = await rawPoster(rig);
    expect(bomb.length).toBeLessThan(MAX); // the set-up holds: on the wire it is within the cap
    expect(await post(bomb)).toMatchObject({ status: 413, body: { error: { code: 'payload_too_large' } } });
    expect(upserts(rig)).toEqual([]);

    expect(await post(Buffer.from('not gzip at all'))).toMatchObject({ status: 400 });

    const sent = await post(small);
    expect(upserts(rig)).toHaveLength(1);
    expect(upserts(rig)[0]!.headers['content-encoding']).toBe('gzip');
    expect(sent.status).not.toBe(413);
  });
});
