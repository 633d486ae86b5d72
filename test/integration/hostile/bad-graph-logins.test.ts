import { startRig, type Rig } from '../../helpers/app-rig.js';

// A login whose graph TigerGraph refuses (400 graph_not_found) has cost an upstream token call, like a wrong
// secret does: it must count against the failed-login limits, or one holder of a valid secret could loop
// `{secret, graph: "nope"}` and make TigerGraph mint-and-refuse without bound.
describe('logins refused for their graph are bounded like wrong secrets', () => {
  let rig: Rig;
  beforeAll(async () => {
    rig = await startRig({ sim: { version: '3.9.3' }, env: { LOGIN_RATE_LIMIT: '5' } });
  });
  afterAll(() => rig.close());

  const tokenCalls = () => rig.sim.seen().filter((r) => /requesttoken|gsql\/v1\/tokens/.test(r.path)).length;

  test('when one client loops logins to a graph that does not exist, then 429 rate_limited after the limit, and TigerGraph is asked no more', async () => {
    const before = tokenCalls();
    const statuses: number[] = [];
    for (let i = 0; i < 15; i++) {
      const res = await rig.agent().post('/auth/login').send({ secret: rig.secret, graph: 'nope' });
      statuses.push(res.status);
      if (res.status === 429) {
        expect(res.body.error.code).toBe('rate_limited');
        expect(res.headers['retry-after']).toBeDefined();
      }
    }
    // The first tries are refused for their graph; past the limit the service answers without asking upstream.
    expect(statuses.slice(0, 5)).toEqual([400, 400, 400, 400, 400]);
    expect(statuses.slice(-5)).toEqual([429, 429, 429, 429, 429]);
    expect(tokenCalls() - before).toBeLessThanOrEqual(6);
  });
});
