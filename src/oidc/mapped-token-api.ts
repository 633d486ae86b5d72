import { readFile } from 'node:fs/promises';
import { TigerGraphError, type TokenApi, type TokenClient, type TokenGrant } from '@tigergraph-bff/client';
import type { CredentialMap, CredentialRef, MapRule } from '../config/credential-map.js';

/** A referenced secret or password file larger than this is not one (and is not read into memory whole). */
const MAX_CREDENTIAL_BYTES = 4096;

export type ResolvedCredential =
  { kind: 'secret'; secret: string } | { kind: 'password'; username: string; password: string };

/**
 * Reads a rule's credential where the map says it is, at every call: a rotated file (or a changed variable
 * of this process) takes effect for the next mint without a restart. The value is never kept beyond the call.
 */
export async function resolveCredential(
  ref: CredentialRef,
  env: Record<string, string | undefined> = process.env,
): Promise<ResolvedCredential> {
  let value: string | undefined;
  if ('env' in ref) value = env[ref.env];
  else {
    const bytes = await readFile(ref.file).catch(() => undefined);
    value = bytes !== undefined && bytes.length <= MAX_CREDENTIAL_BYTES ? bytes.toString('utf8') : undefined;
  }
  value = value?.trim();
  if (value === undefined || value === '')
    throw new TigerGraphError('invalid_credentials', 'The credential of a sign-in rule cannot be read');
  return ref.kind === 'secret'
    ? { kind: 'secret', secret: value }
    : { kind: 'password', username: ref.username, password: value };
}

/**
 * TigerGraph token calls for the credential map's shared tokens. The broker's `credential` parameter is the
 * rule's name, never a secret: the secret or password is looked up per call (resolveCredential), so neither
 * the token state in Redis nor any session holds it. A secret mints, refreshes and deletes as a secret login
 * does, on every version; a user and password mints with Basic auth (3.5+), and its "refresh" is a new mint
 * (the old token lapses at its own expiry: a password cannot delete a token before 4.1, so none is deleted).
 */
export function createMappedTokenApi(deps: {
  tg: TokenClient;
  map: CredentialMap;
  env?: Record<string, string | undefined>;
}): TokenApi {
  const rules = new Map<string, MapRule>(deps.map.rules.map((r) => [r.name, r]));
  const credentialOf = async (ruleName: string): Promise<ResolvedCredential> => {
    const rule = rules.get(ruleName);
    if (rule === undefined) throw new TigerGraphError('invalid_credentials', 'No such sign-in rule any more');
    return resolveCredential(rule.credential, deps.env);
  };

  async function mint(ruleName: string, lifetime?: number, graph?: string): Promise<TokenGrant> {
    const c = await credentialOf(ruleName);
    if (c.kind === 'secret')
      return deps.tg.requestToken(c.secret, lifetime, graph === undefined ? undefined : { graph });
    if (graph === undefined) throw new TigerGraphError('bad_request', 'A password credential mints for one graph');
    return deps.tg.requestTokenWithPassword({ username: c.username, password: c.password }, graph, lifetime);
  }

  return {
    era: deps.tg.era,
    requestToken: (ruleName, lifetime, options) => mint(ruleName, lifetime, options?.graph),
    async refreshToken(ruleName, token, lifetime, options) {
      const c = await credentialOf(ruleName);
      if (c.kind === 'password') return mint(ruleName, lifetime, options?.graph);
      try {
        return await deps.tg.refreshToken(c.secret, token, lifetime, options);
      } catch (err) {
        // A rotated secret cannot refresh the old secret's token: the new one mints a token of its own.
        if (err instanceof TigerGraphError && err.kind === 'invalid_credentials')
          return mint(ruleName, lifetime, options?.graph);
        throw err;
      }
    },
    async deleteToken(ruleName, token) {
      const c = await credentialOf(ruleName);
      if (c.kind === 'secret') await deps.tg.deleteToken(c.secret, token);
    },
  };
}
