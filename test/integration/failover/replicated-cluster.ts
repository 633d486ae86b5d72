import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { poll, WAIT_MS } from '../../helpers/wait.js';
import { startRedisServer, type RedisServer } from '../../helpers/redis-server.js';
import { freePort } from '../../helpers/ports.js';
import { keySlot } from '../../helpers/key-slot.js';

const run = promisify(execFile);

/** A Redis Cluster of three masters, each with one replica that takes over when its master dies. */
export interface ReplicatedCluster {
  nodes: RedisServer[];
  /** Every node, for REDIS_CLUSTER_NODES: the service must find the cluster whichever node is gone. */
  nodeList: string;
  /** A plain client to one node, for checks; closed by stop(). */
  client(port: number): Redis;
  /** Ports of the current masters that serve slots, and which replica follows each. */
  roles(): Promise<Array<{ master: number; replica: number | undefined }>>;
  /** The port of the master that serves `key`'s slot now. */
  ownerOf(key: string): Promise<number>;
  /**
   * Resolves once every master's replica has everything that master had when this was called (the
   * service's writes included), before a test kills a master; rejects if one does not within `timeoutMs`.
   */
  replicated(timeoutMs?: number): Promise<void>;
  stop(): Promise<void>;
}

export async function startReplicatedCluster(options: { nodeTimeoutMs?: number } = {}): Promise<ReplicatedCluster> {
  const nodes: RedisServer[] = [];
  const clients = new Map<number, Redis>();
  const client = (port: number): Redis => {
    const known = clients.get(port);
    if (known) return known;
    const c = new Redis({
      port,
      host: '127.0.0.1',
      maxRetriesPerRequest: 0,
      connectTimeout: 500,
      // Above `replicated`'s WAIT (which this would cut short), and above a loaded machine's stalls.
      commandTimeout: 10_000,
      retryStrategy: () => 200,
    });
    c.on('error', () => undefined); // a killed node is the point here; polling answers failures
    clients.set(port, c);
    return c;
  };
  const stop = async () => {
    for (const c of clients.values()) c.disconnect();
    await Promise.all(nodes.map((n) => n.kill()));
  };
  const live = () => nodes.filter((n) => !dead.has(n.port));
  const dead = new Set<number>();

  try {
    for (let i = 0; i < 6; i += 1) {
      // The bus port is picked, not port + 10000 (past 65535 for high ephemeral ports; see redis-cluster.ts),
      // and picked apart from the node's own: two free-port probes in a row may hand out the same port.
      const port = await freePort();
      let bus = await freePort();
      while (bus === port) bus = await freePort();
      const args = [
        '--cluster-enabled',
        'yes',
        '--cluster-config-file',
        'nodes.conf',
        '--cluster-port',
        String(bus),
        '--cluster-node-timeout',
        String(options.nodeTimeoutMs ?? 1000),
        '--repl-diskless-sync',
        'yes',
        '--repl-diskless-sync-delay',
        '0',
      ];
      nodes.push(await startRedisServer({ port, args }));
    }
    await run(
      'redis-cli',
      ['--cluster', 'create', ...nodes.map((n) => `127.0.0.1:${n.port}`), '--cluster-replicas', '1', '--cluster-yes'],
      { timeout: 30_000 },
    );
    await poll(
      async () => {
        for (const node of nodes) {
          const info = await client(node.port).cluster('INFO');
          if (!info.includes('cluster_state:ok') || !info.includes('cluster_known_nodes:6')) return false;
          // Every node's own view names each master's replica (gossip brings that after the known nodes).
          const roles = rolesIn((await client(node.port).cluster('NODES')) as string);
          if (roles.length !== 3 || roles.some((r) => r.replica === undefined)) return false;
          if (
            (await client(node.port).role())[0] === 'slave' &&
            !(await client(node.port).info('replication')).includes('master_link_status:up')
          )
            return false;
        }
        return true;
      },
      WAIT_MS,
      'cluster_state:ok and every replica in sync',
    );
  } catch (err) {
    await stop();
    throw new Error(
      `could not form the cluster: ${(err as Error).message}\n${nodes.map((n) => n.output()).join('\n')}`,
      { cause: err },
    );
  }

  const rig: ReplicatedCluster = {
    nodes,
    nodeList: nodes.map((n) => `127.0.0.1:${n.port}`).join(','),
    client,
    async roles() {
      return rolesIn((await client(live()[0]!.port).cluster('NODES')) as string);
    },
    async ownerOf(key) {
      const any = client(live()[0]!.port);
      const slot = await any.cluster('KEYSLOT', key);
      const ranges = await any.cluster('SLOTS');
      const master = ranges.find(([from, to]) => slot >= from && slot <= to)?.[2];
      if (!master) throw new Error(`no node serves slot ${slot}`);
      return master[1];
    },
    async replicated(timeoutMs = 5000) {
      // WAIT counts only the writes of the connection it is sent on: from a connection that wrote nothing it
      // answers at once with every replica, whatever they lack. So each master gets a write of ours first, on
      // the same connection, in a slot it serves; its replica acknowledging that write has every earlier one
      // too (one replication stream per master). The default is generous (a starved replica may take seconds)
      // and stays below the checking client's command timeout.
      for (const { master, replica } of await rig.roles()) {
        if (replica === undefined) continue;
        const node = client(master);
        const served = (await node.cluster('SLOTS')).find(([, , owner]) => owner[1] === master);
        if (!served) throw new Error(`master ${master} serves no slot`);
        const [from, to] = served;
        const keyOf = (tag: number) => `replicated:{${tag}}`;
        let tag = 0;
        while (keySlot(keyOf(tag)) < from || keySlot(keyOf(tag)) > to) tag += 1;
        const key = keyOf(tag);
        const replies = await node.pipeline().set(key, '1', 'PX', 60_000).wait(1, timeoutMs).exec();
        const acknowledged = replies?.[1]?.[1];
        if (replies?.some(([err]) => err) || acknowledged !== 1)
          throw new Error(`replica ${replica} did not acknowledge master ${master}'s writes within ${timeoutMs} ms`);
      }
    },
    stop,
  };
  // kill() through the rig's nodes keeps live() honest for roles() and ownerOf().
  for (const node of nodes) {
    const kill = node.kill;
    node.kill = async () => {
      dead.add(node.port);
      await kill();
    };
  }
  return rig;
}

/** Each master (with slots, not failed) and its replica, from CLUSTER NODES text as one node sees it. */
function rolesIn(text: string): Array<{ master: number; replica: number | undefined }> {
  // CLUSTER NODES lines: id addr flags master-id ping pong epoch link-state slots…
  const lines = text
    .trim()
    .split('\n')
    .map((l) => l.split(' '));
  const port = (addr: string) => Number(addr.split('@')[0]!.split(':')[1]);
  const masters = lines.filter((l) => l[2]!.includes('master') && !l[2]!.includes('fail') && l.length > 8);
  return masters.map((m) => {
    const replica = lines.find((l) => l[3] === m[0] && !l[2]!.includes('fail'));
    return { master: port(m[1]!), replica: replica && port(replica[1]!) };
  });
}
