import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startSimulator, type SimulatorHandle } from '../../../src/simulator/index.js';
import { mintJwt, rsaKeys, times } from '../../helpers/jwt-mint.js';
import { basic, bearer, call, SIM_EPOCH } from './sim-http.js';
import { manualClock } from '../../helpers/clock.js';

const HMAC = 'an-hmac-secret-of-reasonable-length-0123456789';
const keys = rsaKeys('k1');
const otherKeys = rsaKeys('k1');

/** What a relay sends: the data endpoints it uses, each must answer 200 with a good JWT. */
const dataCalls = (sim: SimulatorHandle) => [
  { url: `${sim.restppUrl}/echo`, method: 'GET' },
  { url: `${sim.restppUrl}/graph/social/vertices/Person?limit=1`, method: 'GET' },
  { url: `${sim.restppUrl}/query/social/hello?name=Ann`, method: 'GET' },
  { url: `${sim.restppUrl}/endpoints/social`, method: 'GET' },
];

describe.each(['3.10.1', '3.11.0', '4.1.0'])('external JWTs on RESTPP, TigerGraph %s', (version) => {
  const clock = manualClock(SIM_EPOCH);
  let sim: SimulatorHandle;
  const hs = (claims: Record<string, unknown>) => mintJwt({ alg: 'HS256', key: HMAC }, claims);
  const rs = (claims: Record<string, unknown>) => mintJwt({ alg: 'RS256', key: keys.privateKey, kid: 'k1' }, claims);
  const valid = (extra: Record<string, unknown> = {}) => ({
    sub: 'tigergraph',
    aud: ['bff', 'other'],
    iss: 'https://idp.test',
    ...times(300, clock.now()),
    ...extra,
  });
  const echo = (token: string) => call(`${sim.restppUrl}/echo`, { headers: { authorization: bearer(token) } });
  const refusal = async (token: string, url = `${sim.restppUrl}/echo`) => {
    const res = await call(url, { headers: { authorization: bearer(token) } });
    expect(res.status).toBe(401);
    expect(res.json.code).toBe('REST-10016');
    expect(res.json.error).toBe(true);
    expect(res.text).not.toContain(token);
    return res.json.message as string;
  };

  beforeAll(async () => {
    sim = await startSimulator({
      version,
      now: clock.now,
      users: [{ name: 'alice', password: 'alice-pw', graphs: ['social'] }],
      graphs: ['other'],
      jwt: { hmacSecret: HMAC, rsaPublicKey: keys.jwks, issuer: 'https://idp.test', audience: 'bff' },
    });
  });
  afterAll(() => sim.close());

  it('when HS256 and RS256 JWTs name a known user, then every data endpoint the relay uses answers 200', async () => {
    for (const token of [hs(valid()), rs(valid())]) {
      for (const c of dataCalls(sim)) {
        const res = await call(c.url, { method: c.method, headers: { authorization: bearer(token) } });
        expect({ url: c.url, status: res.status, error: res.json?.error === true }).toEqual({
          url: c.url,
          status: 200,
          error: false,
        });
      }
      expect(sim.seen().at(-1)?.auth).toBe('ok');
    }
  });

  it('when HS384/HS512/RS384/RS512 are used, then they are accepted too', async () => {
    for (const alg of ['HS384', 'HS512'] as const)
      expect((await echo(mintJwt({ alg, key: HMAC }, valid()))).status).toBe(200);
    // The helper's JWK carries no `alg`, so the JWKS key takes every RS alg.
    for (const alg of ['RS384', 'RS512'] as const)
      expect((await echo(mintJwt({ alg, key: keys.privateKey, kid: 'k1' }, valid()))).status).toBe(200);
  });

  it('when the token is expired, then REST-10016 "is expired."', async () => {
    const token = hs(valid({ iat: clock.nowSeconds() - 600, exp: clock.nowSeconds() - 1 }));
    expect(await refusal(token)).toMatch(/^Access Denied because the input token = 'eyJh\*{4}.{4}' is expired\.$/);
    expect(sim.seen().at(-1)?.auth).toBe('expired');
  });

  it('when a valid token later passes its exp on the simulator clock, then it is refused', async () => {
    const token = rs(valid({ ...times(30, clock.now()) }));
    expect((await echo(token)).status).toBe(200);
    clock.advance(31_000);
    expect(await refusal(token)).toContain('is expired.');
  });

  it('when sub is not a simulator user, then refused naming the unknown user', async () => {
    expect(await refusal(hs(valid({ sub: 'mallory' })))).toContain(
      "refers to the user 'mallory', which does not exist.",
    );
  });

  it('when sub is missing, then refused as a format error', async () => {
    const { sub: _sub, ...noSub } = valid();
    expect(await refusal(hs(noSub))).toContain('is not in correct format');
  });

  it('when the graph claim names a graph the user may not use, then refused with a graph permission reason', async () => {
    expect(await refusal(hs(valid({ sub: 'alice', graph: 'other' })))).toContain(
      "user 'alice' has no permission on graph 'other'",
    );
  });

  it('when the graph claim limits the token to one graph, then other graphs are refused and its graph works', async () => {
    const token = hs(valid({ graph: 'social' }));
    const ok = await call(`${sim.restppUrl}/graph/social/vertices/Person?limit=1`, {
      headers: { authorization: bearer(token) },
    });
    expect(ok.status).toBe(200);
    expect(await refusal(token, `${sim.restppUrl}/graph/other/vertices/Person`)).toContain(
      "has no permission on graph 'other'",
    );
  });

  it('when there is no graph claim, then the user reaches the graphs it may use and no others', async () => {
    const token = hs(valid({ sub: 'alice' }));
    expect(
      (await call(`${sim.restppUrl}/query/social/hello`, { headers: { authorization: bearer(token) } })).status,
    ).toBe(200);
    expect(await refusal(token, `${sim.restppUrl}/graph/other/vertices/Person`)).toContain(
      "has no permission on graph 'other'",
    );
  });

  it('when iss differs or is missing, then refused with an issuer mismatch', async () => {
    expect(await refusal(hs(valid({ iss: 'https://evil.test' })))).toContain(
      "contains issuer https://evil.test, which doesn't match the configured one https://idp.test",
    );
    const { iss: _iss, ...noIss } = valid();
    expect(await refusal(hs(noIss))).toContain("which doesn't match the configured one https://idp.test");
  });

  it('when aud does not contain the configured audience (case-sensitive), then the doc sample wording', async () => {
    const message = await refusal(hs(valid({ aud: ['a', 'b'] })));
    expect(message).toMatch(
      /^Access Denied because the input token = 'eyJh\*{4}.{4}' contains audience \[a,b\], which doesn't include the configured one bff$/,
    );
    expect(await refusal(hs(valid({ aud: 'BFF' })))).toContain(
      "contains audience [BFF], which doesn't include the configured one bff",
    );
    expect((await echo(hs(valid({ aud: 'bff' })))).status).toBe(200);
  });

  it('when the signature is wrong (other key, tampered payload, HS with a wrong secret), then refused as signature', async () => {
    const foreign = mintJwt({ alg: 'RS256', key: otherKeys.privateKey, kid: 'k1' }, valid());
    expect(await refusal(foreign)).toContain('failed the signature verification');
    const good = hs(valid());
    const [h, , s] = good.split('.');
    const tampered = `${h}.${Buffer.from(JSON.stringify(valid({ sub: 'alice' }))).toString('base64url')}.${s}`;
    expect(await refusal(tampered)).toContain('failed the signature verification');
    expect(await refusal(mintJwt({ alg: 'HS256', key: 'not-the-secret' }, valid()))).toContain(
      'failed the signature verification',
    );
  });

  it('when alg is none, then refused', async () => {
    const none = `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url')}.${Buffer.from(JSON.stringify(valid())).toString('base64url')}.`;
    expect(await refusal(none)).toMatch(/is not in correct format|failed the signature verification/);
    const noneSigned = mintJwt({ alg: 'HS256', key: HMAC, header: { alg: 'none' } }, valid());
    expect(await refusal(noneSigned)).toContain('failed the signature verification');
  });

  it('when the token is garbage with dots (bad base64, bad JSON), then "is not in correct format"', async () => {
    expect(await refusal('eyJhbGciOi!!.eyJzdWIiOiJ0aWdlcmdyYXBoIn0.c2lnbmF0dXJl')).toContain(
      'is not in correct format',
    );
    const notJson = `${Buffer.from('{not json').toString('base64url')}.${Buffer.from('{"sub":"x"}').toString('base64url')}.c2lnbmF0dXJlAAAA`;
    expect(await refusal(notJson)).toContain('is not in correct format');
  });

  it('when a GSQL-issued or plaintext token is used, then it still works as before', async () => {
    const secret = sim.createSecret(version.startsWith('4') ? {} : { graph: 'social' }).value;
    const token = version.startsWith('4')
      ? (await call(`${sim.gsqlUrl}/gsql/v1/tokens`, { method: 'POST', body: JSON.stringify({ secret }) })).json.token
      : (await call(`${sim.restppUrl}/requesttoken`, { method: 'POST', body: JSON.stringify({ secret }) })).json.token;
    expect(typeof token).toBe('string');
    expect((await echo(token)).status).toBe(200);
  });

  it('when an external JWT is revoked through the handle, then it is refused', async () => {
    const token = hs(valid());
    expect((await echo(token)).status).toBe(200);
    sim.revokeToken(token);
    expect((await echo(token)).status).toBe(401);
  });

  it('when Basic credentials are sent instead of a JWT, then data endpoints still refuse them', async () => {
    const res = await call(`${sim.restppUrl}/echo`, { headers: { authorization: basic('tigergraph', 'tigergraph') } });
    expect(res.status).toBe(401);
  });
});

describe('alg confusion and key forms', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'sim-jwt-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('when an HS256 token is signed with the RSA public key text (alg confusion), then it is refused', async () => {
    const sim = await startSimulator({ version: '4.1.0', jwt: { rsaPublicKey: keys.publicPem } });
    try {
      const confused = mintJwt({ alg: 'HS256', key: keys.publicPem }, { sub: 'tigergraph', ...times(300) });
      const res = await call(`${sim.restppUrl}/echo`, { headers: { authorization: bearer(confused) } });
      expect(res.status).toBe(401);
      expect(res.json.message).toContain('failed the signature verification');
      // A PEM key (no JWK alg) takes RS384 too.
      const rs384 = mintJwt({ alg: 'RS384', key: keys.privateKey }, { sub: 'tigergraph', ...times(300) });
      expect((await call(`${sim.restppUrl}/echo`, { headers: { authorization: bearer(rs384) } })).status).toBe(200);
    } finally {
      await sim.close();
    }
  });

  it('when keys come from @files (PEM, JWK, secret with a trailing newline), then they verify', async () => {
    await writeFile(join(dir, 'pub.pem'), keys.publicPem);
    await writeFile(join(dir, 'jwk.json'), keys.jwk);
    await writeFile(join(dir, 'hmac.txt'), `${HMAC}\n`);
    for (const rsaPublicKey of [`@${join(dir, 'pub.pem')}`, `@${join(dir, 'jwk.json')}`]) {
      const sim = await startSimulator({
        version: '3.10.1',
        jwt: { rsaPublicKey, hmacSecret: `@${join(dir, 'hmac.txt')}` },
      });
      try {
        for (const token of [
          mintJwt({ alg: 'RS256', key: keys.privateKey, kid: 'k1' }, { sub: 'tigergraph', ...times(300) }),
          mintJwt({ alg: 'HS256', key: HMAC }, { sub: 'tigergraph', ...times(300) }),
        ]) {
          expect((await call(`${sim.restppUrl}/echo`, { headers: { authorization: bearer(token) } })).status).toBe(200);
        }
      } finally {
        await sim.close();
      }
    }
  });

  it('when the JWKS key names its alg (RS256) or kid, then another RS alg or kid is refused', async () => {
    const jwks = JSON.stringify({ keys: [{ ...JSON.parse(keys.jwk), alg: 'RS256' }] });
    const sim = await startSimulator({ version: '4.1.0', jwt: { rsaPublicKey: jwks } });
    try {
      const echo = (t: string) => call(`${sim.restppUrl}/echo`, { headers: { authorization: bearer(t) } });
      const claims = { sub: 'tigergraph', ...times(300) };
      expect((await echo(mintJwt({ alg: 'RS256', key: keys.privateKey, kid: 'k1' }, claims))).status).toBe(200);
      expect((await echo(mintJwt({ alg: 'RS384', key: keys.privateKey, kid: 'k1' }, claims))).status).toBe(401);
      expect((await echo(mintJwt({ alg: 'RS256', key: keys.privateKey, kid: 'k2' }, claims))).status).toBe(401);
    } finally {
      await sim.close();
    }
  });

  it('when only an HMAC secret is configured, then RS256 tokens are refused', async () => {
    const sim = await startSimulator({ version: '3.11.0', jwt: { hmacSecret: HMAC } });
    try {
      const token = mintJwt({ alg: 'RS256', key: keys.privateKey }, { sub: 'tigergraph', ...times(300) });
      expect((await call(`${sim.restppUrl}/echo`, { headers: { authorization: bearer(token) } })).status).toBe(401);
    } finally {
      await sim.close();
    }
  });

  it('when jwt is configured on a pre-3.10 version or the key file is missing, then start-up fails without quoting the key', async () => {
    await expect(startSimulator({ version: '3.9.3', jwt: { hmacSecret: HMAC } })).rejects.toThrow(/3\.10 or later/);
    await expect(startSimulator({ version: '4.1.0', jwt: { rsaPublicKey: '@/nonexistent/key.pem' } })).rejects.toThrow(
      /cannot read jwt\.rsaPublicKey/,
    );
    await expect(startSimulator({ version: '4.1.0', jwt: { rsaPublicKey: 'not a key' } })).rejects.toThrow(
      /neither a PEM key nor a JWK/,
    );
  });

  it('when jwt is not configured, then a JWT-shaped token is simply invalid', async () => {
    const sim = await startSimulator({ version: '3.11.0' });
    try {
      const token = mintJwt({ alg: 'HS256', key: HMAC }, { sub: 'tigergraph', ...times(300) });
      const res = await call(`${sim.restppUrl}/echo`, { headers: { authorization: bearer(token) } });
      expect(res.status).toBe(401);
      expect(res.json.message).toContain('is invalid.');
    } finally {
      await sim.close();
    }
  });
});
