import { startRig, type Rig } from '../../helpers/app-rig.js';

// Issue 30 item 5: a login to a graph that does not exist (or that the secret is not for) is refused at
// login where TigerGraph tells (3.5+), instead of a 200 now and a 400 from the data server later.
describe.each(['3.9.3', '4.1.0'])('login naming a graph, TigerGraph %s', (version) => {
  let rig: Rig;
  beforeAll(async () => {
    rig = await startRig({ sim: { version, graphs: ['other'] }, env: { LOGIN_RATE_LIMIT: '1000' } });
  });
  afterAll(() => rig.close());

  const sessionKeys = async () => (await rig.redis().keys(`${rig.prefix}sess:*`)).length;

  test('when the graph does not exist, then 400 graph_not_found naming no secret, no cookie, no session, no token', async () => {
    const [keysBefore, tokensBefore] = [await sessionKeys(), rig.sim.tokens().length];
    const res = await rig.agent().post('/auth/login').send({ secret: rig.secret, graph: 'nosuch' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      error: { code: 'graph_not_found', message: 'That graph does not exist, or this secret is not for it' },
    });
    expect(res.headers['set-cookie']).toBeUndefined();
    expect(JSON.stringify(res.body)).not.toContain(rig.secret);
    expect(await sessionKeys()).toBe(keysBefore);
    expect(rig.sim.tokens().length).toBe(tokensBefore);
    // The token request named the graph: that is how TigerGraph got to say no.
    const asked = rig.sim
      .seen()
      .filter((r) => /requesttoken|gsql\/v1\/tokens/.test(r.path))
      .at(-1);
    expect(JSON.parse(asked?.bodyText ?? '{}')).toMatchObject({ graph: 'nosuch' });
  });

  test('when the graph is the secret’s, then login succeeds and the relay works on it', async () => {
    const agent = rig.agent();
    const res = await agent.post('/auth/login').send({ secret: rig.secret, graph: 'social' });
    expect(res.status).toBe(200);
    expect(res.body.graph).toBe('social');
    expect((await agent.get('/api/graph/social/vertices/Person')).status).toBe(200);
  });

  test('when no graph is named, then login goes on as before', async () => {
    expect((await rig.agent().post('/auth/login').send({ secret: rig.secret })).status).toBe(200);
  });
});

describe('a secret of graph social used with another graph that exists', () => {
  test('when TigerGraph is 3.x (secrets belong to a graph), then 400 graph_not_found', async () => {
    const rig = await startRig({ sim: { version: '3.9.3', graphs: ['other'] } });
    try {
      const res = await rig.agent().post('/auth/login').send({ secret: rig.secret, graph: 'other' });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('graph_not_found');
    } finally {
      await rig.close();
    }
  });

  test('when TigerGraph is 4.1+ (secrets belong to no graph), then the login is for that graph', async () => {
    const rig = await startRig({ sim: { version: '4.1.0', graphs: ['other'] } });
    try {
      const res = await rig.agent().post('/auth/login').send({ secret: rig.secret, graph: 'other' });
      expect(res.status).toBe(200);
      expect(res.body.graph).toBe('other');
    } finally {
      await rig.close();
    }
  });

  test('when TigerGraph is 3.4 (no graph can go with a secret), then login cannot check and answers 200', async () => {
    const rig = await startRig({ sim: { version: '3.4.0' } });
    try {
      const res = await rig.agent().post('/auth/login').send({ secret: rig.secret, graph: 'nosuch' });
      expect(res.status).toBe(200);
      expect(rig.sim.seen().at(-1)?.query).not.toContain('graph');
    } finally {
      await rig.close();
    }
  });
});
