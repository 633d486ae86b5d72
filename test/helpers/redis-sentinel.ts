import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { poll, WAIT_MS } from './wait.js';
import { startRedisServer, type RedisServer } from './redis-server.js';
import type { TlsCert } from './tls-cert.js';

export interface SentinelGroupOptions {
  name?: string;
  /** How long a master may be silent before a sentinel calls it down. */
  downAfterMs?: number;
  /** Also the pause before sentinels retry a failover that did not finish (twice this). */
  failoverTimeoutMs?: number;
  /**
   * Every node and sentinel also gets a TLS port with this certificate, and all Redis-to-Redis links
   * use it: the replica syncs over TLS, and sentinels reach the data nodes and each other over TLS
   * (`tls-replication yes`). Sentinels then know each node by its `tlsPort`, `serviceEnv` names the
   * sentinels' TLS ports, and `client(port)` speaks TLS to a TLS port.
   */
  tls?: TlsCert;
}

/** One master, one replica and three sentinels (quorum 2), each on its own loopback port. */
export interface SentinelGroup {
  name: string;
  /** The nodes as started; which of them is master changes with a failover. */
  master: RedisServer;
  replica: RedisServer;
  sentinels: RedisServer[];
  /**
   * The settings a service reaches this group by: REDIS_SENTINELS (`127.0.0.1:a,127.0.0.1:b,127.0.0.1:c`,
   * the TLS ports with `tls`) and REDIS_SENTINEL_NAME.
   */
  serviceEnv: { REDIS_SENTINELS: string; REDIS_SENTINEL_NAME: string };
  /** The master's port as the first answering sentinel names it (its `tlsPort` with `tls`). */
  masterPort(): Promise<number>;
  /** Resolves once every live sentinel names `port` as master. */
  waitForMaster(port: number, timeoutMs?: number): Promise<void>;
  /** Resolves once every sentinel knows the replica and the other two sentinels (needed to fail over). */
  waitUntilReady(timeoutMs?: number): Promise<void>;
  /** A client to one port (one per port; TLS to a TLS port), for checks; closed by stop(). */
  client(port: number): Redis;
  /**
   * How many replicas acknowledged everything the master at `port` had when this was called (the service's
   * writes included), waiting up to `timeoutMs`: 1 once the replica has caught up. A bare `WAIT` would not
   * say: it counts only the writes of the connection it is sent on, and the checking client writes nothing,
   * so it answered 1 at once whatever the replica lacked. So a write of ours goes first, on that connection;
   * the replica acknowledging it has every earlier write too (one replication stream). The default wait
   * (5 s) is generous, as a starved replica may take seconds, and below the checking client's command timeout.
   */
  replicated(port: number, timeoutMs?: number): Promise<number>;
  stop(): Promise<void>;
}

export async function startSentinelGroup(options: SentinelGroupOptions = {}): Promise<SentinelGroup> {
  const name = options.name ?? 'bffmaster';
  const cert = options.tls;
  const clients = new Map<number, Redis>();
  const client = (port: number): Redis => {
    const known = clients.get(port);
    if (known) return known;
    const tls = cert && started.some((s) => s.tlsPort === port) ? { tls: { ca: readFileSync(cert.certFile) } } : {};
    const c = new Redis({
      port,
      host: '127.0.0.1',
      maxRetriesPerRequest: 0,
      connectTimeout: 500,
      // Above `replicated`'s WAIT (which this would cut short), and above a loaded machine's stalls: a check
      // that times out is retried by the polls, but fails a direct read outright.
      commandTimeout: 10_000,
      retryStrategy: () => 200,
      ...tls,
    });
    c.on('error', () => undefined); // dead nodes are expected here; callers poll until an answer fits
    clients.set(port, c);
    return c;
  };
  // Sentinels rewrite their config file, so each gets a writable one of its own.
  const confDir = mkdtempSync(join(tmpdir(), 'sentinel-conf-'));
  const started: RedisServer[] = [];
  const stop = async (): Promise<void> => {
    for (const c of clients.values()) c.disconnect();
    await Promise.all(started.map((s) => s.kill()));
    rmSync(confDir, { recursive: true, force: true });
  };

  const sentinels: RedisServer[] = [];
  let master: RedisServer;
  let replica: RedisServer;
  // The port other Redis processes (and so the service) know a node by.
  const linkPort = (s: RedisServer): number => (cert ? s.tlsPort! : s.port);
  const tlsLinks = cert ? { tls: cert, args: ['--tls-replication', 'yes'] } : { args: [] };
  try {
    // Diskless sync without the default 5 s delay, so the replica is in sync about a second after start.
    master = await startRedisServer({ ...tlsLinks, args: [...tlsLinks.args, '--repl-diskless-sync-delay', '0'] });
    started.push(master);
    replica = await startRedisServer({
      ...tlsLinks,
      args: [...tlsLinks.args, '--replicaof', '127.0.0.1', String(linkPort(master)), '--repl-diskless-sync-delay', '0'],
    });
    started.push(replica);
    await poll(
      async () => (await client(replica.port).info('replication')).includes('master_link_status:up'),
      WAIT_MS,
      'replica sync',
    );
    for (let i = 0; i < 3; i += 1) {
      const file = join(confDir, `sentinel-${i}.conf`);
      writeFileSync(
        file,
        [
          `sentinel monitor ${name} 127.0.0.1 ${linkPort(master)} 2`,
          `sentinel down-after-milliseconds ${name} ${options.downAfterMs ?? 1000}`,
          `sentinel failover-timeout ${name} ${options.failoverTimeoutMs ?? 3000}`,
          `sentinel parallel-syncs ${name} 1`,
          '',
        ].join('\n'),
      );
      sentinels.push(await startRedisServer({ ...tlsLinks, configFile: file, args: ['--sentinel', ...tlsLinks.args] }));
      started.push(sentinels[i]!);
    }
  } catch (err) {
    await stop();
    throw err;
  }

  const askMaster = async (port: number): Promise<number | undefined> => {
    const reply = (await client(port)
      .call('SENTINEL', 'GET-MASTER-ADDR-BY-NAME', name)
      .catch(() => null)) as string[] | null;
    return reply ? Number(reply[1]) : undefined;
  };

  const sentinelList = sentinels.map((s) => `127.0.0.1:${linkPort(s)}`).join(',');
  return {
    name,
    master,
    replica,
    sentinels,
    serviceEnv: { REDIS_SENTINELS: sentinelList, REDIS_SENTINEL_NAME: name },
    async masterPort() {
      for (const s of sentinels) {
        const port = await askMaster(s.port);
        if (port !== undefined) return port;
      }
      throw new Error('no sentinel answered');
    },
    async waitForMaster(port, timeoutMs = WAIT_MS) {
      await poll(
        async () => {
          const named = await Promise.all(sentinels.map((s) => askMaster(s.port)));
          return named.every((p) => p === undefined || p === port) && named.some((p) => p === port);
        },
        timeoutMs,
        `sentinels to name ${port} as master`,
      );
    },
    async waitUntilReady(timeoutMs = WAIT_MS) {
      await poll(
        async () => {
          for (const s of sentinels) {
            const fields = toRecord((await client(s.port).call('SENTINEL', 'MASTER', name)) as string[]);
            if (fields['num-other-sentinels'] !== '2' || fields['num-slaves'] !== '1' || fields.flags !== 'master')
              return false;
            const replicas = (await client(s.port).call('SENTINEL', 'REPLICAS', name)) as string[][];
            if (!replicas.every((r) => toRecord(r)['master-link-status'] === 'ok' && toRecord(r).flags === 'slave'))
              return false;
          }
          return true;
        },
        timeoutMs,
        'sentinels to see the replica and each other',
      );
    },
    client,
    async replicated(port, timeoutMs = 5000) {
      const replies = await client(port)
        .pipeline()
        .set('replicated-check', '1', 'PX', 60_000)
        .wait(1, timeoutMs)
        .exec();
      const failed = replies?.find(([err]) => err)?.[0];
      if (failed) throw failed;
      return replies?.[1]?.[1] as number;
    },
    stop,
  };
}

function toRecord(flat: string[]): Record<string, string> {
  const record: Record<string, string> = {};
  for (let i = 0; i + 1 < flat.length; i += 2) record[flat[i]!] = flat[i + 1]!;
  return record;
}
