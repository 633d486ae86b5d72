import { createSecretApi } from '../../../src/tigergraph/secret-api.js';
import type { SecretRecord } from '../../../src/tigergraph/types.js';
import type { SimulatorHandle, SimulatorOptions } from '../../../src/simulator/types.js';

/** Simulator users for password login: alice may use `social`, bob has no graph at all. */
export const ALICE = { name: 'alice', password: 'alice-Pa55word-xyz', graphs: ['social'] };
export const BOB = { name: 'bob', password: 'bob-Pa55word-xyz', graphs: [] as string[] };
export const SIM_USERS: SimulatorOptions = { users: [ALICE, BOB] };

export const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

/** What the admin server holds for a user, asked over real HTTP with the client library (SHOW SECRET). */
export async function secretsOf(sim: SimulatorHandle, user: { name: string; password: string }, graph = 'social'): Promise<SecretRecord[]> {
  const api = createSecretApi({ gsqlUrl: sim.gsqlUrl, version: sim.version });
  try {
    return await api.listSecrets({ username: user.name, password: user.password }, graph);
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
