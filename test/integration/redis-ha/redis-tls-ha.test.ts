/**
 * Sentinel and Cluster failover over TLS within bounds, many redis-server processes
 */
import { sessionKeys } from '../../../src/store/keys.js';
import { startRig, untilReady, type Rig } from '../../helpers/app-rig.js';
import { poll } from '../../helpers/wait.js';
import { startRedisCluster, type RedisClusterRig } from '../../helpers/redis-cluster.js';
import { startSentinelGroup, type SentinelGroup } from '../../helpers/redis-sentinel.js';
import { makeLoopbackCert, type TlsCert } from '../../helpers/tls-cert.js';
import { loginWithSid } from './ha-load.js';
import { recordFigure } from '../../helpers/figures.js';

// The service gets only TLS ports and trusts the self-signed certificate through REDIS_CA_FILE alone;
// a plain connection to a TLS port fails, so every answer below came over TLS on every hop.
// What these tests judge is TLS on every hop and failover, not the command timeout: a machine whose cores other
// work has taken once needed more than the default 800 ms for a TLS login's first commands (503 in set-up), so
// the timeout is a few times that, and set-up waits for /readyz before the first login.
const tlsEnv = (cert: TlsCert) => ({
  REDIS_TLS: 'true',
  REDIS_CA_FILE: cert.certFile,
  REDIS_COMMAND_TIMEOUT_MS: '4000',
});

describe('Redis Sentinel over TLS: data nodes, replication and sentinels on TLS ports', () => {
  let cert: TlsCert;
  let group: SentinelGroup;
  let rig: Rig;
  const keys = () => sessionKeys(rig.prefix);

  beforeAll(async () => {
    cert = await makeLoopbackCert();
    group = await startSentinelGroup({ tls: cert });
    await group.waitUntilReady();
    rig = await startRig({
      store: { env: { ...group.serviceEnv, ...tlsEnv(cert) } },
      env: { LOGIN_RATE_LIMIT: '1000' },
    });
    expect(await untilReady(rig)).toBe(200);
  });
  afterAll(async () => {
    await rig?.close();
    await group?.stop();
    cert?.remove();
  });

  test('when the service finds the master through TLS sentinels, then login and relay work and the session reaches the replica', async () => {
    // The Redis-to-Redis links are TLS too: sentinels name the master by its TLS port, the replica syncs from it.
    expect(await group.masterPort()).toBe(group.master.tlsPort);
    expect(await group.client(group.replica.port).info('replication')).toContain(`master_port:${group.master.tlsPort}`);

    const { agent, sid } = await loginWithSid(rig);
    expect((await agent.get('/api/echo')).status).toBe(200);
    expect((await agent.get('/readyz')).status).toBe(200);
    expect(await group.replicated(group.master.tlsPort!)).toBe(1);
    expect(await group.client(group.replica.port).exists(keys().session(sid), keys().token(sid))).toBe(2);
  });

  test('when the master is killed, then sentinels promote the replica over TLS and the service follows with its sessions', async () => {
    const sessions = await Promise.all([1, 2, 3].map(() => loginWithSid(rig)));
    expect(await group.replicated(group.master.tlsPort!)).toBe(1);
    const mintsBefore = rig.sim.counts()['POST /requesttoken'] ?? 0;

    const killedAt = Date.now();
    await group.master.kill();
    await group.waitForMaster(group.replica.tlsPort!, 20_000);
    await poll(
      async () => (await sessions[0]!.agent.get('/api/echo')).status === 200,
      20_000, // generous: the figure below is what matters; a loaded 2-core host has needed over 10 s
      'relay through the new master',
    );
    recordFigure(
      `sentinel failover over TLS: relay works again ${Date.now() - killedAt} ms after the master was killed`,
    );

    for (const { agent } of sessions) {
      const session = await agent.get('/auth/session');
      expect(session.status).toBe(200);
      expect(session.body.authenticated).toBe(true);
      expect((await agent.get('/api/echo')).status).toBe(200);
    }
    expect(rig.sim.counts()['POST /requesttoken'] ?? 0).toBe(mintsBefore);
    const late = await loginWithSid(rig);
    expect((await late.agent.get('/api/echo')).status).toBe(200);
    expect(await group.client(group.replica.port).exists(keys().session(late.sid))).toBe(1);
  });
});

describe('Redis Cluster over TLS: three masters, TLS ports and a TLS cluster bus', () => {
  let cert: TlsCert;
  let cluster: RedisClusterRig;
  let rig: Rig;
  const keys = () => sessionKeys(rig.prefix);

  beforeAll(async () => {
    cert = await makeLoopbackCert();
    cluster = await startRedisCluster({ tls: cert });
    rig = await startRig({
      store: { env: { REDIS_CLUSTER_NODES: cluster.nodeList, ...tlsEnv(cert) } },
      env: { LOGIN_RATE_LIMIT: '1000' },
    });
    expect(await untilReady(rig)).toBe(200);
  });
  afterAll(async () => {
    await rig?.close();
    await cluster?.stop();
    cert?.remove();
  });

  test('when sessions log in through the TLS ports, then login and relay work and the sessions spread over the masters', async () => {
    const sessions = await Promise.all(Array.from({ length: 8 }, () => loginWithSid(rig)));
    const owners = new Set<number>();
    for (const { agent, sid } of sessions) {
      expect((await agent.get('/api/echo')).status).toBe(200);
      const owner = await cluster.ownerOf(keys().session(sid));
      expect(await cluster.client(owner).exists(keys().session(sid), keys().token(sid))).toBe(2);
      owners.add(owner);
    }
    // More than one master answered: the client followed the slot map to the other nodes' TLS ports.
    expect(owners.size).toBeGreaterThan(1);
    expect((await sessions[0]!.agent.get('/readyz')).status).toBe(200);
  });

  test('when the CA is not trusted, then the store is unavailable (503), not silently unverified', async () => {
    const untrusting = await startRig({ store: { env: { REDIS_CLUSTER_NODES: cluster.nodeList, REDIS_TLS: 'true' } } });
    try {
      const res = await untrusting.agent().post('/auth/login').send({ secret: untrusting.secret, graph: 'social' });
      expect(res.status).toBe(503);
      expect(res.body.error.code).toBe('store_unavailable');
    } finally {
      await untrusting.close();
    }
  });
});
