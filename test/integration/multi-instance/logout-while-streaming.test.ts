import { randomBytes } from 'node:crypto';
import { sidOf } from '../../helpers/cookies.js';
import { CSRF, call, login, startCluster, type Cluster } from './cluster.js';
import { openStream } from './stream-client.js';

describe('logout on one instance while another streams for the same session', () => {
  let cluster: Cluster;
  beforeAll(async () => {
    cluster = await startCluster({ instances: 3, label: 'multi-logout' });
  });
  afterAll(() => cluster?.close());

  test('when the session logs out via B while A streams a relayed answer, then the session stays dead on every instance, in Redis and upstream', async () => {
    const [a, b] = cluster.instances;
    const own = cluster.sim.createSecret({ alias: `logout_${randomBytes(3).toString('hex')}` });
    const cookie = await login(a!.url, own.value);
    const keys = cluster.keys(sidOf(cookie));
    const from = cluster.sim.seen().length;

    const stream = openStream(a!.url, '/api/query/social/stream?chunks=20&delayMs=100&chunkBytes=512', cookie);
    let streamEnded = false;
    const markEnded = () => (streamEnded = true);
    stream.done.then(markEnded, markEnded);
    await stream.started;
    const logout = await fetch(`${b!.url}/auth/logout`, { method: 'POST', headers: { ...CSRF, Cookie: cookie } });
    expect(logout.status).toBe(204);
    expect(streamEnded).toBe(false); // the logout really raced the stream
    const streamed = await stream.done;
    expect(streamed.status).toBe(200);

    // The stream's own end (session touch, token bookkeeping) must not bring the session back.
    for (const instance of cluster.instances) {
      const session = await call(instance.url, '/auth/session', cookie);
      expect([session.status, session.body.error?.code]).toEqual([401, 'not_authenticated']);
      const api = await call(instance.url, '/api/echo', cookie);
      expect([api.status, api.body.error?.code]).toEqual([401, 'not_authenticated']);
    }
    expect(await cluster.redis.exists(keys.session)).toBe(0);
    expect(await cluster.redis.exists(keys.token)).toBe(0);
    expect(await cluster.redis.exists(keys.tombstone)).toBe(1);
    const streamCall = cluster.sim
      .seen()
      .slice(from)
      .find((r) => r.path === '/query/social/stream')!;
    const usedToken = String(streamCall.headers.authorization).replace(/^Bearer /, '');
    const live = cluster.sim.tokens();
    expect(live.map((t) => t.token)).not.toContain(usedToken);
    expect(live.filter((t) => t.secretAlias === own.alias)).toEqual([]);
    // The 401s above were answered by the BFF: nothing went upstream for the dead session.
    expect(
      cluster.sim
        .seen()
        .slice(from)
        .filter((r) => r.path === '/echo'),
    ).toEqual([]);
  });
});
