import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startSimulator, type SimulatorHandle } from '../../../src/simulator/index.js';
import { mintJwt, times } from '../../helpers/jwt-mint.js';
import { bearer, call } from './sim-http.js';

/**
 * What 4.1+ mode already did right and must keep doing with external JWT verification switched on:
 * `/restpp/requesttoken` answers the token at the top level (docs/tigergraph-wire.md §1.5), and a JWT from
 * `/gsql/v1/tokens` is a Bearer credential on the GSQL endpoints as well as on `/restpp` (§6).
 */
describe.each([false, true])(
  'simulator 4.1 GSQL-issued JWTs (external JWT verification configured: %s)',
  (external) => {
    let sim: SimulatorHandle;
    let secret: string;

    beforeAll(async () => {
      sim = await startSimulator({
        version: '4.1.0',
        ...(external && { jwt: { hmacSecret: 'kept-behaviour-hmac-secret', audience: 'bff' } }),
      });
      secret = sim.createSecret({ alias: 'kept' }).value;
    });
    afterAll(() => sim.close());

    const gsqlToken = async (): Promise<string> => {
      const res = await call(`${sim.gsqlUrl}/gsql/v1/tokens`, { method: 'POST', body: JSON.stringify({ secret }) });
      expect(res.status).toBe(200);
      return res.json.token as string;
    };

    it('when /restpp/requesttoken is asked with a secret, then the JWT is at the top level and works on /restpp', async () => {
      const res = await call(`${sim.restppUrl}/requesttoken`, { method: 'POST', body: JSON.stringify({ secret }) });
      expect(res.status).toBe(200);
      expect(res.json).toMatchObject({ error: false, code: 'REST-0000' });
      expect(res.json.results).toBeUndefined();
      expect(res.json.token).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
      const echo = await call(`${sim.restppUrl}/echo`, { headers: { authorization: bearer(res.json.token) } });
      expect(echo.status).toBe(200);
    });

    it('when a /gsql/v1/tokens JWT is the Bearer on GSQL endpoints, then they answer as for Basic; once dropped, 401', async () => {
      const token = await gsqlToken();
      const secrets = await call(`${sim.gsqlUrl}/gsql/v1/secrets`, { headers: { authorization: bearer(token) } });
      expect(secrets.status).toBe(200);
      expect(secrets.text).toContain('kept');
      const statement = await call(`${sim.gsqlUrl}/gsql/v1/statements`, {
        method: 'POST',
        body: 'SHOW SECRET',
        headers: { authorization: bearer(token) },
      });
      expect(statement.status).toBe(200);
      expect((await call(`${sim.restppUrl}/echo`, { headers: { authorization: bearer(token) } })).status).toBe(200);

      sim.revokeToken(token);
      expect((await call(`${sim.gsqlUrl}/gsql/v1/secrets`, { headers: { authorization: bearer(token) } })).status).toBe(
        401,
      );
      expect((await call(`${sim.restppUrl}/echo`, { headers: { authorization: bearer(token) } })).status).toBe(401);
    });

    it('when a JWT not issued by the GSQL server is the Bearer on GSQL endpoints, then 401', async () => {
      const foreign = mintJwt(
        { alg: 'HS256', key: 'kept-behaviour-hmac-secret' },
        { sub: 'tigergraph', aud: 'bff', ...times(300) },
      );
      expect(
        (await call(`${sim.gsqlUrl}/gsql/v1/secrets`, { headers: { authorization: bearer(foreign) } })).status,
      ).toBe(401);
      // On RESTPP the same token is accepted exactly when external verification is configured.
      expect((await call(`${sim.restppUrl}/echo`, { headers: { authorization: bearer(foreign) } })).status).toBe(
        external ? 200 : 401,
      );
    });
  },
);
