import { randomBytes } from 'node:crypto';
import supertest from 'supertest';
import { parseSetCookie } from '../../helpers/cookies.js';
import { CSRF, startRig, type Rig } from '../../helpers/app-rig.js';
import { logLines } from './log-lines.js';
import { testClock } from '../../helpers/clock.js';

/** Every token the simulator issued or was shown: live ones, Bearer headers, and query/body fields. */
function harvestTokens(rig: Rig, into: Set<string>): void {
  for (const t of rig.sim.tokens()) into.add(t.token);
  for (const r of rig.sim.seen()) {
    const auth = r.headers.authorization;
    if (typeof auth === 'string' && auth.startsWith('Bearer ')) into.add(auth.slice('Bearer '.length));
    const fromQuery = new URLSearchParams(r.query).get('token');
    if (fromQuery) into.add(fromQuery);
    const fromBody = /"token"\s*:\s*"([^"]+)"/.exec(r.bodyText ?? '')?.[1];
    if (fromBody) into.add(fromBody);
  }
}

/**
 * Every call here must be answered within it (token calls within half of it), and one relayed call must run
 * out of it: a data server three times slower does. 500 ms left token calls 250 ms, too little for a process
 * waiting for the CPU.
 */
const UPSTREAM_TIMEOUT_MS = 2000;

// 3.4 puts secrets and tokens in query strings, 3.9 in JSON bodies, 4.1 uses JWTs on the admin port.
describe.each(['3.4.0', '3.9.3', '4.1.0'])(
  'when a whole session runs at LOG_LEVEL=trace against TigerGraph %s',
  (version) => {
    let rig: Rig;
    const clock = testClock();
    beforeAll(async () => {
      rig = await startRig({
        now: clock.now,
        sim: { version },
        env: {
          LOG_LEVEL: 'trace',
          TG_TOKEN_LIFETIME: '1000',
          TOKEN_REFRESH_BEFORE: '100',
          UPSTREAM_TIMEOUT_MS: String(UPSTREAM_TIMEOUT_MS),
        },
      });
    });
    afterAll(() => rig.close());

    test('then the captured logs hold no secret, token, cookie value or session id, though errors with causes were logged', async () => {
      const tokens = new Set<string>();
      const wrongSecret = randomBytes(16).toString('hex');
      const browserBearer = `browser${randomBytes(12).toString('hex')}`;
      const app = () => supertest(rig.service.app);

      expect((await app().post('/auth/login').set(CSRF).send({ secret: wrongSecret, graph: 'social' })).status).toBe(
        401,
      );
      const login = await app().post('/auth/login').set(CSRF).send({ secret: rig.secret, graph: 'social' });
      expect(login.status).toBe(200);
      const cookie = parseSetCookie(login.headers['set-cookie']![0]!);
      const signed = decodeURIComponent(cookie.value); // s:<sid>.<signature>
      const sid = signed.slice(2, signed.lastIndexOf('.'));
      const asBrowser = (req: supertest.Test) =>
        req
          .set(CSRF)
          .set('Cookie', `${cookie.name}=${cookie.value}; theme=dark`)
          .set('Authorization', `Bearer ${browserBearer}`);

      expect((await asBrowser(app().get(`/api/echo?token=${browserBearer}&secret=${rig.secret}`))).status).toBe(200);
      const query = await asBrowser(app().post('/api/query/social/friends')).send({
        person: 'alice',
        secret: rig.secret,
        token: browserBearer,
      });
      expect(query.status).toBe(200);
      harvestTokens(rig, tokens);

      clock.advance(950_000); // due for refresh
      expect((await asBrowser(app().get('/api/echo'))).status).toBe(200);
      harvestTokens(rig, tokens);
      const current = rig.sim
        .seen()
        .filter((r) => r.path === '/echo')
        .at(-1)!.headers.authorization as string;
      rig.sim.revokeToken(current.slice('Bearer '.length));
      expect((await asBrowser(app().get('/api/echo'))).status).toBe(200); // replayed with a fresh token
      harvestTokens(rig, tokens);

      clock.advance(950_000);
      rig.sim.setFaults({ tokenForcedStatus: 500 });
      expect((await asBrowser(app().get('/api/echo'))).status).toBe(200); // refresh fails, current token still serves
      expect((await app().post('/auth/login').set(CSRF).send({ secret: rig.secret, graph: 'social' })).status).toBe(
        502,
      );
      rig.sim.setFaults({ latencyMs: 3 * UPSTREAM_TIMEOUT_MS });
      expect((await asBrowser(app().get('/api/echo'))).status).toBe(504);
      rig.sim.setFaults({});
      expect((await app().get('/api/echo').set(CSRF).set('Cookie', `${cookie.name}=s%3Aforged.sig`)).status).toBe(401);
      harvestTokens(rig, tokens);

      expect((await asBrowser(app().post('/auth/logout'))).status).toBe(204);
      harvestTokens(rig, tokens);

      const text = rig.logs();
      const lines = logLines(text);
      // The test only proves something if the dangerous paths were actually logged.
      expect(lines.some((l) => l.level === 10 || l.level === 20)).toBe(true);
      // The refresh failure's warning, and the 502 and 504 as fault lines (which carry the error at debug and below).
      expect(lines.filter((l) => Number(l.level) >= 40 && typeof l.err === 'object').length).toBeGreaterThanOrEqual(3);
      expect(
        lines.filter((l) => typeof l.fault === 'string' && typeof l.err === 'object').length,
      ).toBeGreaterThanOrEqual(2);
      expect(tokens.size).toBeGreaterThanOrEqual(2);

      const sensitive: Record<string, string> = {
        secret: rig.secret,
        'wrong secret': wrongSecret,
        'browser bearer': browserBearer,
        'cookie value': cookie.value,
        'signed cookie': signed,
        'session id': sid,
      };
      for (const [i, token] of [...tokens].entries()) sensitive[`token #${i}`] = token;
      // The audit trail is scanned too: it saw the same logins, refusals, token calls and logout.
      const audit = rig.audit();
      expect(audit).toContain('"event":"login.succeeded"');
      const leaks = Object.entries(sensitive)
        .filter(([, value]) => text.includes(value) || audit.includes(value))
        .map(([label]) => label);
      expect(leaks).toEqual([]);
    });
  },
);
