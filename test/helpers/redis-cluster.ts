import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { poll, WAIT_MS } from './wait.js';
import { startRedisServer, type RedisServer } from './redis-server.js';
import { freePort } from './ports.js';
import type { TlsCert } from './tls-cert.js';

const run = promisify(execFile);

/** A Redis Cluster of masters only (no replicas), each on its own loopback port. */
export interface RedisClusterRig {
  nodes: RedisServer[];
  /** `127.0.0.1:a,127.0.0.1:b,…`, for REDIS_CLUSTER_NODES (the TLS ports with `tls`). */
  nodeList: string;
  /** A plain (non-cluster) client to one node, for checks; closed by stop(). */
  client(port: number): Redis;
  /** The port of the master that serves `key`'s slot (its plain port: what CLUSTER SLOTS tells a plain client). */
  ownerOf(key: string): Promise<number>;
  stop(): Promise<void>;
}

export interface RedisClusterOptions {
  masters?: number;
  /**
   * Each node also gets a TLS port with this certificate, and the cluster bus runs over TLS
   * (`tls-cluster yes`). Nodes then announce their TLS ports to TLS clients (CLUSTER SLOTS, MOVED)
   * and their plain ports to plain ones, so `client()` and `ownerOf()` stay plain.
   */
  tls?: TlsCert;
}

export async function startRedisCluster(options: RedisClusterOptions = {}): Promise<RedisClusterRig> {
  const count = options.masters ?? 3;
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
      // Generous: a check that times out on a loaded machine fails a direct read outright.
      commandTimeout: 10_000,
    });
    c.on('error', () => undefined); // polling below answers failures
    clients.set(port, c);
    return c;
  };
  const stop = async () => {
    for (const c of clients.values()) c.disconnect();
    await Promise.all(nodes.map((n) => n.kill()));
  };

  try {
    for (let i = 0; i < count; i += 1) {
      // nodes.conf is relative to --dir, which startRedisServer makes private to each node.
      const args = [
        '--cluster-enabled',
        'yes',
        '--cluster-config-file',
        'nodes.conf',
        '--cluster-node-timeout',
        '3000',
      ];
      // The bus port is the node's port + 10000 by default, past 65535 for a free port above 55535 (this
      // machine hands out ports up to 60999, and Redis then refuses to start): always pick one.
      const bus = ['--cluster-port', String(await freePort())];
      const tls = options.tls ? { tls: options.tls, args: ['--tls-cluster', 'yes'] } : { args: [] };
      nodes.push(await startRedisServer({ ...(tls.tls && { tls: tls.tls }), args: [...args, ...bus, ...tls.args] }));
    }
    const addresses = nodes.map((n) => `127.0.0.1:${n.port}`);
    await run('redis-cli', ['--cluster', 'create', ...addresses, '--cluster-replicas', '0', '--cluster-yes'], {
      timeout: 30_000,
    });
    await poll(
      async () => {
        for (const node of nodes) {
          const info = await client(node.port).cluster('INFO');
          if (!info.includes('cluster_state:ok') || !info.includes(`cluster_known_nodes:${count}`)) return false;
        }
        return true;
      },
      WAIT_MS,
      'cluster_state:ok on every node',
    );
  } catch (err) {
    await stop();
    throw new Error(
      `could not form the cluster: ${(err as Error).message}\n${nodes.map((n) => n.output()).join('\n')}`,
      { cause: err },
    );
  }

  return {
    nodes,
    nodeList: nodes.map((n) => `127.0.0.1:${n.tlsPort ?? n.port}`).join(','),
    client,
    async ownerOf(key) {
      const slot = await client(nodes[0]!.port).cluster('KEYSLOT', key);
      const ranges = await client(nodes[0]!.port).cluster('SLOTS');
      const master = ranges.find(([from, to]) => slot >= from && slot <= to)?.[2];
      if (!master) throw new Error(`no node serves slot ${slot}`);
      return master[1];
    },
    stop,
  };
}
