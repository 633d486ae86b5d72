import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { startSimulator, type SimulatorHandle } from '../../../src/simulator/index.js';
import { TigerGraphConnection } from '../../../packages/client/src/connection.js';
import { createTokenApi } from '../../../packages/client/src/restpp-client.js';
import { createClock, expectKind, type TestClock } from './fixtures.js';

/**
 * The client's ≤3.4 path against a simulator that accepts only what 3.4 accepted (query strings on
 * GET/PUT/DELETE): proves the client sends exactly that, and that a 3.5-style call is refused.
 */
describe('client library against a strict 3.4 simulator', () => {
  let sim: SimulatorHandle;
  let clock: TestClock;
  let secret: string;

  beforeAll(async () => {
    clock = createClock();
    sim = await startSimulator({ version: '3.4.0', now: clock.now });
    secret = sim.createSecret({ alias: 'legacy' }).value;
  });
  afterAll(() => sim.close());

  test('when TigerGraphConnection gets, uses, refreshes and deletes a token, then every call succeeds as GET/PUT/DELETE with query strings', async () => {
    const conn = new TigerGraphConnection({
      restppUrl: sim.restppUrl,
      gsqlUrl: sim.gsqlUrl,
      version: '3.4.0',
      graphname: 'social',
      now: clock.now,
    });
    try {
      const [token, expiresAt] = (await conn.getToken(secret, true, 600)) as [string, number, string];
      expect(expiresAt).toBe(clock.nowSeconds() + 600);
      expect(await conn.echo()).toBe('Hello GSQL');
      clock.advanceSeconds(100);
      const [again, refreshed] = await conn.refreshToken(secret, '', 900);
      expect([again, refreshed]).toEqual([token, clock.nowSeconds() + 900]);
      expect(await conn.deleteToken(secret)).toBe(true);
      const tokenCalls = sim.seen().filter((s) => s.path === '/requesttoken');
      expect(tokenCalls.map((s) => [s.method, s.bodyText])).toEqual([
        ['GET', undefined],
        ['PUT', undefined],
        ['DELETE', undefined],
      ]);
      for (const call of tokenCalls) expect(new URLSearchParams(call.query).get('secret')).toBe(secret);
      await expectKind(conn.echo(), 'invalid_credentials');
    } finally {
      await conn.close();
    }
  });

  test('when createTokenApi (3.4) requests, refreshes and deletes, then it works; deleting again is token_not_found', async () => {
    const api = createTokenApi({ restppUrl: sim.restppUrl, version: '3.4.0', now: clock.now });
    try {
      const grant = await api.requestToken(secret, 300);
      expect(grant.expiresAt).toBe(clock.nowSeconds() + 300);
      expect((await api.refreshToken(secret, grant.token, 60)).token).toBe(grant.token);
      await api.deleteToken(secret, grant.token);
      await expectKind(api.deleteToken(secret, grant.token), 'token_not_found');
      await expectKind(
        api.requestTokenWithPassword({ username: 'tigergraph', password: 'tigergraph' }, 'social'),
        'bad_request',
      );
    } finally {
      await api.close();
    }
  });

  test('when a client speaks 3.5+ (JSON bodies) to the 3.4 server, then it is refused and no token is minted', async () => {
    const before = sim.tokens().length;
    const lenient = createTokenApi({ restppUrl: sim.restppUrl, version: '3.9.3', now: clock.now });
    try {
      const err = await expectKind(lenient.requestToken(secret, 300), 'invalid_credentials');
      expect(err.message).not.toContain(secret);
      await expectKind(
        lenient.requestTokenWithPassword({ username: 'tigergraph', password: 'tigergraph' }, 'social'),
        'invalid_credentials',
      );
      expect(sim.tokens()).toHaveLength(before);
    } finally {
      await lenient.close();
    }
  });
});
