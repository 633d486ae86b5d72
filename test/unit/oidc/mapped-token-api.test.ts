import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { TigerGraphError, type TokenClient } from '@tigergraph-bff/client';
import type { CredentialMap } from '../../../src/config/credential-map.js';
import { createMappedTokenApi } from '../../../src/oidc/mapped-token-api.js';

/**
 * The shared tokens' TigerGraph calls read the rule's credential at every call: a rotated file is used by the
 * next mint or refresh, without a restart, and a secret that cannot refresh the old secret's token mints.
 * A fake TigerGraph that knows one secret at a time stands in for the client.
 */
let dir: string;
let file: string;
beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'tgbff-map-api-'));
  file = path.join(dir, 'secret');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function fakeTigerGraph() {
  const calls: string[] = [];
  const minted = new Map<string, string>(); // token -> the secret that minted it
  let n = 0;
  const tg = {
    era: 'json',
    requestToken: (secret: string) => {
      calls.push(`mint ${secret}`);
      const token = `t${++n}`;
      minted.set(token, secret);
      return Promise.resolve({ token, expiresAt: 2_000_000_000 });
    },
    refreshToken: (secret: string, token: string) => {
      calls.push(`refresh ${secret} ${token}`);
      if (minted.get(token) !== secret) return Promise.reject(new TigerGraphError('invalid_credentials', 'no'));
      return Promise.resolve({ token, expiresAt: 2_000_000_100 });
    },
    deleteToken: (secret: string, token: string) => {
      calls.push(`delete ${secret} ${token}`);
      return Promise.resolve();
    },
    requestTokenWithPassword: () => Promise.reject(new Error('not in this test')),
    close: () => Promise.resolve(),
  } as unknown as TokenClient;
  return { tg, calls };
}

const mapOf = (): CredentialMap => ({
  path: 'map.yaml',
  rules: [
    { name: 'analysts', claim: 'groups', match: ['a'], graphs: ['social'], credential: { kind: 'secret', file } },
  ],
});

describe('the credential map token calls', () => {
  test('when the secret file is rotated, then the next refresh of the old token mints from the new secret', async () => {
    writeFileSync(file, 'old-secret\n');
    const { tg, calls } = fakeTigerGraph();
    const api = createMappedTokenApi({ tg, map: mapOf() });
    const first = await api.requestToken('analysts', 600);
    writeFileSync(file, 'new-secret');
    const next = await api.refreshToken('analysts', first.token, 600);
    expect(calls).toEqual(['mint old-secret', `refresh new-secret ${first.token}`, 'mint new-secret']);
    expect(next.token).not.toBe(first.token);
    // Unchanged, a refresh is a refresh.
    await api.refreshToken('analysts', next.token, 600);
    expect(calls.at(-1)).toBe(`refresh new-secret ${next.token}`);
  });

  test('when the file is empty or gone, or the rule unknown, then the call fails as a refused credential and reads nothing else', async () => {
    const { tg, calls } = fakeTigerGraph();
    const api = createMappedTokenApi({ tg, map: mapOf() });
    writeFileSync(file, '  \n');
    await expect(api.requestToken('analysts', 600)).rejects.toMatchObject({ kind: 'invalid_credentials' });
    rmSync(file);
    await expect(api.requestToken('analysts', 600)).rejects.toMatchObject({ kind: 'invalid_credentials' });
    await expect(api.requestToken('nobody', 600)).rejects.toMatchObject({ kind: 'invalid_credentials' });
    expect(calls).toEqual([]);
  });
});
