import { afterEach, describe, expect, test } from '@jest/globals';
import { startSimulator, type SimulatorHandle } from '../../../src/simulator/index.js';
import { TigerGraphConnection } from '../../../packages/client/src/connection.js';
import { mintJwt, times } from '../../helpers/jwt-mint.js';
import { createClock, expectKind } from './fixtures.js';

const HMAC = 'client-test-hmac-secret-client-test';

/** Data-call refusals must be the same typed error whether the server answers them 401 or 403. */
describe.each([
  ['3.9.3', 401],
  ['3.9.3', 403],
  ['3.10.0', 401],
  ['3.10.0', 403],
  ['4.1.0', 401],
  ['4.1.0', 403],
] as const)('client data calls against TigerGraph %s answering auth failures with %i', (version, authFailureStatus) => {
  let sim: SimulatorHandle;
  let conn: TigerGraphConnection;
  afterEach(async () => {
    await conn.close();
    await sim.close();
  });

  const start = async (extra: Parameters<typeof startSimulator>[0] = {}) => {
    const clock = createClock();
    sim = await startSimulator({ version, now: clock.now, authFailureStatus, ...extra });
    conn = new TigerGraphConnection({
      restppUrl: sim.restppUrl,
      gsqlUrl: sim.gsqlUrl,
      version,
      graphname: 'social',
      now: clock.now,
    });
    return clock;
  };

  test('when no token, a dead token or an expired token is sent, then invalid_credentials with the status and TigerGraph code', async () => {
    const clock = await start();
    const missing = await expectKind(conn.echo(), 'invalid_credentials');
    expect([missing.status, missing.code]).toEqual([authFailureStatus, 'REST-10016']);

    const secret = sim.createSecret({ alias: 'app' }).value;
    await conn.getToken(secret, true, 60);
    expect(await conn.echo()).toBe('Hello GSQL');
    clock.advanceSeconds(61);
    const expired = await expectKind(conn.getVertices('Person'), 'invalid_credentials');
    expect(expired.status).toBe(authFailureStatus);
    expect(expired.code).toBe('REST-10019');
  });

  test('when the token has no access to the graph, then invalid_credentials with the status', async () => {
    await start({ graphs: ['other'], users: [{ name: 'ann', password: 'ann-pw', graphs: ['other'] }] });
    const secret = sim.createSecret({
      user: 'ann',
      ...(version !== '4.1.0' && { graph: 'other' }),
      alias: 'ann',
    }).value;
    await conn.getToken(secret);
    const err = await expectKind(conn.getVertices('Person'), 'invalid_credentials');
    expect([err.status, err.code]).toEqual([authFailureStatus, 'REST-10016']);
  });

  if (version !== '3.9.3') {
    test('when an external JWT is refused (audience), then invalid_credentials with the status; a good one works', async () => {
      const clock = await start({ jwt: { hmacSecret: HMAC, audience: 'bff' } });
      const jwt = (aud: string) =>
        mintJwt({ alg: 'HS256', key: HMAC }, { sub: 'tigergraph', aud, ...times(300, clock.now()) });
      const bad = new TigerGraphConnection({
        restppUrl: sim.restppUrl,
        version,
        graphname: 'social',
        apiToken: jwt('nope'),
      });
      const good = new TigerGraphConnection({
        restppUrl: sim.restppUrl,
        version,
        graphname: 'social',
        apiToken: jwt('bff'),
      });
      try {
        const err = await expectKind(bad.echo(), 'invalid_credentials');
        expect([err.status, err.code]).toEqual([authFailureStatus, 'REST-10016']);
        expect(await good.echo()).toBe('Hello GSQL');
      } finally {
        await bad.close();
        await good.close();
      }
    });
  }
});
