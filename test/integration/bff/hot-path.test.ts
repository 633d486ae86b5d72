import { performance } from 'node:perf_hooks';
import { startRigOnOwnRedis, type OwnRedisRig, type Rig } from '../../helpers/app-rig.js';
import { watchCommands, type CommandWatch } from '../../helpers/redis-monitor.js';

// What a relayed request costs in Redis once the session is logged in (the benchmark's target is at
// most 1.2 commands per request): one MGET of session + tombstone each, the token state read once per
// memo period (30 s), and one touch per 1% of the idle timeout.
describe('Redis commands on the relay hot path', () => {
  // A redis-server of its own: MONITOR on the shared one would see (and slow) every other test's commands.
  let own: OwnRedisRig;
  let rig: Rig;
  let watch: CommandWatch;
  beforeAll(async () => {
    own = await startRigOnOwnRedis();
    rig = own.rig;
    watch = await watchCommands(own.redis.url, rig.prefix);
  });
  afterAll(async () => {
    watch.stop();
    await own.close();
  });

  test('when a logged-in session makes 20 requests, then each costs one MGET and the token and touch are not per request', async () => {
    const agent = await rig.login();
    await watch.reset();
    const started = performance.now();
    for (let i = 0; i < 20; i++) expect((await agent.get('/api/echo')).status).toBe(200);
    const elapsedMs = performance.now() - started;

    const names = (await watch.commands()).map(([name]) => name);
    const count = (name: string) => names.filter((n) => n === name).length;
    expect(count('mget')).toBe(20);
    expect(count('exists')).toBe(0);
    expect(count('get')).toBe(0);
    // The idle timeout is 1800 s, so one touch per 18 s; 20 requests take far less on any machine.
    expect(count('expire')).toBe(elapsedMs < 18_000 ? 1 : 2);
    // The token state is read once, then remembered for 30 s.
    expect(count('hgetall')).toBe(elapsedMs < 30_000 ? 1 : 2);
    expect(names.filter((n) => !['mget', 'expire', 'hgetall'].includes(n))).toEqual([]);
  });

  test('when the session logs out, then the next request is refused although its token was just remembered', async () => {
    const login = await rig.agent().post('/auth/login').send({ secret: rig.secret, graph: 'social' });
    const cookie = String(login.headers['set-cookie']?.[0]).split(';')[0]!;
    const call = () => rig.agent().get('/api/echo').set('Cookie', cookie);
    expect((await call()).status).toBe(200);
    expect((await rig.agent().post('/auth/logout').set('Cookie', cookie)).status).toBe(204);

    const res = await call();
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('not_authenticated');
  });
});
