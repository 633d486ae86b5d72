import type { Redis } from 'ioredis';
import { poll, WAIT_MS } from '../../helpers/wait.js';
import { startSentinelGroup, type SentinelGroup } from '../../helpers/redis-sentinel.js';
import { createRedisClient } from '../../../src/store/redis/client.js';

/**
 * A Sentinel client's failover detector (its +switch-master subscriptions on the sentinels) belongs to
 * one connection. Left listening after that connection was lost, it acts on the failover's +switch-master
 * by cutting the client's attempt to ask the sentinels for the new master, and ioredis then gives up on
 * the client for good (seen in the Sentinel failover test under load: connections "ended by itself", the
 * session cache bypassed for the rest of the run). Watched from the sentinels' side: their subscribed
 * clients, which only detectors are.
 */
describe('Sentinel client: a lost connection stops listening for +switch-master', () => {
  let group: SentinelGroup;
  const clients: Redis[] = [];

  beforeAll(async () => {
    group = await startSentinelGroup();
    await group.waitUntilReady();
  });
  afterAll(async () => {
    for (const c of clients) c.disconnect();
    await group?.stop();
  });

  /** Clients subscribed on each sentinel (CLIENT LIST's `sub=`): the detectors listening there. */
  const listening = async (): Promise<number[]> =>
    Promise.all(
      group.sentinels.map(async (s) => {
        const list = (await group.client(s.port).call('CLIENT', 'LIST')) as string;
        return list.split('\n').filter((line) => /\bsub=[1-9]/.test(line)).length;
      }),
    );

  test('when the master and its replica are gone, then neither the client nor its duplicate listens on any sentinel, and neither ends', async () => {
    const client = createRedisClient({
      mode: 'sentinel',
      sentinels: group.sentinels.map((s) => ({ host: '127.0.0.1', port: s.port })),
      name: group.name,
    }) as Redis;
    clients.push(client);
    await client.connect();
    // The session cache's connections are duplicates of the stores' connection.
    const copy = client.duplicate({ lazyConnect: true, enableOfflineQueue: false });
    clients.push(copy);
    copy.on('error', () => undefined);
    await copy.connect();
    let ended = 0;
    for (const c of [client, copy]) c.on('end', () => (ended += 1));
    // Set-up holds: both detectors subscribed on every sentinel.
    await poll(async () => (await listening()).every((n) => n === 2), WAIT_MS, 'both detectors to subscribe');

    // No promotion can follow (no node left), so a detector still listening would stay for good.
    await Promise.all([group.master.kill(), group.replica.kill()]);
    await poll(
      async () => client.status !== 'ready' && copy.status !== 'ready',
      WAIT_MS,
      'both connections to see the loss',
    );
    await poll(async () => (await listening()).every((n) => n === 0), WAIT_MS, 'every detector to stop listening');
    expect([client.status, copy.status].filter((s) => s === 'end')).toEqual([]);
    expect(ended).toBe(0);
  });
});
