import { connect, createServer, type Socket } from 'node:net';
import type { Redis } from 'ioredis';
import { parseShowSecrets } from '../../../packages/client/src/parse-gsql-output.js';
import { createSecretApi } from '../../../packages/client/src/secret-api.js';
import type { SecretRecord } from '../../../packages/client/src/types.js';
import type { SimulatorHandle, SimulatorOptions } from '../../../src/simulator/types.js';

/** Simulator users for password login: alice may use `social`, bob has no graph at all. */
export const ALICE = { name: 'alice', password: 'alice-Pa55word-xyz', graphs: ['social'] };
export const BOB = { name: 'bob', password: 'bob-Pa55word-xyz', graphs: [] as string[] };
export const SIM_USERS: SimulatorOptions = { users: [ALICE, BOB] };

export const basic = (user: string, password: string) =>
  `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

/**
 * What the admin server holds for a user, on any graph, asked over real HTTP with the client library: a
 * bare SHOW SECRET (listSecrets first checks a graph, which bob may not use).
 */
export async function secretsOf(
  sim: SimulatorHandle,
  user: { name: string; password: string },
): Promise<SecretRecord[]> {
  const api = createSecretApi({ gsqlUrl: sim.gsqlUrl, version: sim.version });
  try {
    return parseShowSecrets(await api.gsql.runGsql({ username: user.name, password: user.password }, 'SHOW SECRET'));
  } finally {
    await api.close();
  }
}

/** DROP SECRET statements for `alias` the admin server received (3.x form body or 4.x REST path). */
export function dropsSeen(sim: SimulatorHandle, alias: string): number {
  return sim.seen().filter((r) => {
    if (r.port !== 'gsql') return false;
    if (r.method === 'DELETE' && r.path === `/gsql/v1/secrets/${alias}`) return true;
    const text = decodeURIComponent((r.bodyText ?? '').replace(/\+/g, ' '));
    return r.method === 'POST' && text.includes(`DROP SECRET ${alias}`);
  }).length;
}

/** The basic-auth user names the admin server saw, decoded (never the passwords). */
export function gsqlUsersSeen(sim: SimulatorHandle): string[] {
  return sim.seen().flatMap((r) => {
    const auth = r.headers['authorization'];
    if (r.port !== 'gsql' || typeof auth !== 'string' || !/^basic /i.test(auth)) return [];
    return [Buffer.from(auth.slice(6), 'base64').toString('utf8').split(':')[0] ?? ''];
  });
}

/**
 * A TCP gate in front of the admin server: open, it forwards; shut, it cuts every connection, so the
 * service sees an unreachable admin server while the simulator itself keeps running.
 */
export async function startGate(target: string) {
  const { hostname, port } = new URL(target);
  const sockets = new Set<Socket>();
  let open = true;
  const server = createServer((client) => {
    if (!open) return void client.destroy();
    const upstream = connect(Number(port), hostname);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.once('close', () => sockets.delete(s));
      s.on('error', () => undefined);
    }
    client.pipe(upstream).pipe(client);
    client.once('close', () => upstream.destroy());
    upstream.once('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${address.port}`,
    shut() {
      open = false;
      for (const s of sockets) s.destroy();
    },
    open() {
      open = true;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** Every value under the rig's prefix, whatever its type, as one string. */
export async function everythingStored(redis: Redis, prefix: string): Promise<string> {
  const keys = await redis.keys(`${prefix}*`);
  const values = await Promise.all(
    keys.map(async (key) => {
      const type = await redis.type(key);
      if (type === 'string') return redis.get(key);
      if (type === 'hash') return JSON.stringify(await redis.hgetall(key));
      if (type === 'zset') return JSON.stringify(await redis.zrange(key, 0, -1));
      return `${key}:${type}`;
    }),
  );
  return `${keys.join('\n')}\n${values.join('\n')}`;
}
