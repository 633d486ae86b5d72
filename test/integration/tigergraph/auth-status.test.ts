import { startSimulator, type SimulatorHandle } from '../../../src/simulator/index.js';
import { TigerGraphConnection } from '../../../src/tigergraph/connection.js';
import { wireEraOf } from '../../../src/tigergraph/version.js';
import { mintJwt, times } from '../../helpers/jwt-mint.js';
import { createClock, expectKind, type TestClock } from './fixtures.js';

/**
 * RESTPP answers auth refusals (REST-10016/10019) with 401 on some releases and 403 on others
 * (tigergraph-wire.md §5). The client library must raise the same typed error under both, keeping
 * the status and code on it for callers that want them.
 */
const HMAC = 'client-library-auth-status-hmac-secret';

describe.each([
  ['3.9.3', 401],
  ['3.9.3', 403],
  ['3.11.0', 401],
  ['3.11.0', 403],
  ['4.1.0', 401],
  ['4.1.0', 403],
] as const)('client library data calls against TigerGraph %s answering auth refusals with %i', (version, status) => {
  const jwtEra = wireEraOf(version) === 'jwt';
  const externalJwt = version !== '3.9.3';
  let sim: SimulatorHandle;
  let clock: TestClock;

  beforeEach(async () => {
    clock = createClock();
    sim = await startSimulator({
      version,
      now: clock.now,
      authFailureStatus: status,
      users: [{ name: 'alice', password: 'alice-pw', graphs: ['social'] }],
      graphs: ['other'],
      ...(externalJwt && { jwt: { hmacSecret: HMAC, audience: 'bff' } }),
    });
  });
  afterEach(() => sim.close());

  const connect = (graphname: string, apiToken?: string) =>
    new TigerGraphConnection({ restppUrl: sim.restppUrl, gsqlUrl: sim.gsqlUrl, version, graphname, now: clock.now, ...(apiToken && { apiToken }) });

  const withConn = async (conn: TigerGraphConnection, body: (c: TigerGraphConnection) => Promise<void>) => {
    try {
      await body(conn);
    } finally {
      await conn.close();
    }
  };

  test(`when no token is set, then echo fails as invalid_credentials carrying HTTP ${status} and REST-10016`, async () => {
    await withConn(connect('social'), async (conn) => {
      const err = await expectKind(conn.echo(), 'invalid_credentials');
      expect(err.status).toBe(status);
      expect(err.code).toBe('REST-10016');
    });
  });

  test(`when the token has expired, then getVertices fails as invalid_credentials carrying HTTP ${status}`, async () => {
    const secret = sim.createSecret(jwtEra ? { user: 'alice' } : { user: 'alice', graph: 'social' }).value;
    await withConn(connect('social'), async (conn) => {
      await conn.getToken(secret, true, 60);
      await expect(conn.getVertices('Person', { limit: 1 })).resolves.toEqual(expect.any(Array));
      clock.advanceSeconds(61);
      const err = await expectKind(conn.getVertices('Person', { limit: 1 }), 'invalid_credentials');
      expect(err.status).toBe(status);
      expect(['REST-10016', 'REST-10019']).toContain(err.code);
    });
  });

  test(`when the token's user may not use the graph, then the refusal is invalid_credentials carrying HTTP ${status}`, async () => {
    const secret = sim.createSecret(jwtEra ? { user: 'alice' } : { user: 'alice', graph: 'social' }).value;
    let value = '';
    await withConn(connect('social'), async (minter) => {
      const token = await minter.getToken(secret, false, 600);
      value = typeof token === 'string' ? token : token[0];
    });
    await withConn(connect('other', value), async (conn) => {
      const err = await expectKind(conn.getVertices('Person'), 'invalid_credentials');
      expect(err.status).toBe(status);
      expect(err.code).toBe('REST-10016');
      expect(err.message).toMatch(/graph 'other'/);
      expect(err.message).not.toContain(value);
    });
  });

  if (externalJwt) test(`when an IdP-minted JWT is the apiToken, then data calls work, and a wrong-audience one fails with HTTP ${status}`, async () => {
    const good = mintJwt({ alg: 'HS256', key: HMAC }, { sub: 'alice', aud: 'bff', ...times(300, clock.now()) });
    await withConn(connect('social', good), async (conn) => {
      expect(await conn.echo()).toBe('Hello GSQL');
      await expect(conn.runInstalledQuery('hello', { name: 'Ann' })).resolves.toEqual(expect.any(Array));
    });
    const wrongAud = mintJwt({ alg: 'HS256', key: HMAC }, { sub: 'alice', aud: 'other', ...times(300, clock.now()) });
    await withConn(connect('social', wrongAud), async (conn) => {
      const err = await expectKind(conn.echo(), 'invalid_credentials');
      expect(err.status).toBe(status);
      expect(err.code).toBe('REST-10016');
      expect(err.message).toContain("contains audience [other], which doesn't include the configured one bff");
    });
  });
});
