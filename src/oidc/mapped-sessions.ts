import { createHash } from 'node:crypto';
import { TigerGraphError } from '@tigergraph-bff/client';
import { AppError } from '../errors.js';
import type { CredentialMap, MapRule } from '../config/credential-map.js';
import type { TokenState } from '../store/types.js';
import type { TokenBroker } from '../tokens/token-broker.js';
import { endsSession } from '../tokens/map-upstream-error.js';
import { firstMatch, opens } from './credential-rules.js';

/**
 * Sessions of the credential map (OIDC_CREDENTIAL_MAP), two token states each:
 *
 * - the person's own, under the session id: the IdP access token, refreshed with the person's refresh token
 *   by the OIDC broker's rules (once per session across instances), and at each refresh the claims read
 *   again (`recheck`): a person no longer admitted by the session's rule for its graph loses the session;
 * - the rule's, shared: one TigerGraph token per (rule, graph), minted from the rule's credential under
 *   a key of its own (`map.<hash>`) by a broker of its own, so its lease and single-flight span every
 *   session of the rule on every instance, and the number of live TigerGraph tokens is bounded by
 *   rules × graphs (twice that across a refresh on 4.1+), not by people. No session's end touches it.
 *
 * The session's scope (`[rule, graph]` as JSON) rides as the broker's `graph` parameter, so the IdP side
 * can check the claims against it at refresh and this side knows which shared token to use.
 */
export interface MappedSessions {
  readonly map: CredentialMap;
  /** The broker a mapped session's strategy uses (src/sessions/kinds/mapped.ts). */
  readonly broker: TokenBroker;
  /** The scope a session of `rule` on `graph` passes as the broker's graph parameter. */
  scope(rule: string, graph: string | null): string;
  /** The rule's shared token for `graph`, minted when there is none (a login checks the credential so). */
  shared(rule: string, graph: string | null): Promise<TokenState>;
  /** The rule's shared token for `graph` refused by TigerGraph: replaced once across instances (as for sessions). */
  sharedRejected(rule: string, graph: string | null, token: string): Promise<TokenState | null>;
  /** The rule named `name`, if the map still has it. */
  rule(name: string): MapRule | undefined;
  /** The graphs a rule opens, as GET /auth/session shows them. */
  graphsOf(rule: string): readonly string[] | undefined;
  /** The key of a rule's shared token state for a graph (GET /auth/session reads its expiry). */
  tokenKey(rule: string, graph: string | null): string;
}

/** The shared token state's key: hashed, so neither a rule nor a graph name appears in key names. */
export const sharedKey = (rule: string, graph: string | null): string =>
  `map.${createHash('sha256')
    .update(`${rule}\n${graph ?? '*'}`)
    .digest('base64url')
    .slice(0, 32)}`;

export function parseScope(scope: string | undefined): { rule: string; graph: string | null } {
  try {
    const [rule, graph] = JSON.parse(scope ?? '') as unknown[];
    if (typeof rule === 'string' && (typeof graph === 'string' || graph === null)) return { rule, graph };
  } catch {
    // below
  }
  throw new AppError('session_expired', 'The session has no sign-in rule; log in again');
}

/** At a refresh: the claims must still lead to the session's rule, and that rule must still open its graph. */
export function recheckClaims(map: CredentialMap, claims: Record<string, unknown>, scope: string | undefined): void {
  const { rule, graph } = parseScope(scope);
  const now = firstMatch(map, claims);
  if (now === null || now.name !== rule || !opens(now, graph)) throw new Error('the sign-in rule no longer admits');
}

export function createMappedSessions(deps: {
  map: CredentialMap;
  /** Keeps each session's IdP tokens, claims read again at every refresh (idp-token-api.ts `recheck`). */
  idpBroker: TokenBroker;
  /** Keeps the shared TigerGraph tokens (mapped-token-api.ts: its credential parameter is the rule's name). */
  sharedBroker: TokenBroker;
  /** The shared tokens' lifetime (TG_TOKEN_LIFETIME), ms: their state lives as long as they do. */
  lifetimeMs: number;
  /**
   * TigerGraph checks a graph named beside a secret (3.5+). Before, a secret's token is for the secret's own
   * graph whatever a login names, so a rule's secret gets one shared token, not one per name a login makes up
   * (a person in a `*` rule could otherwise have a token minted for every name they try).
   */
  graphsChecked: boolean;
}): MappedSessions {
  const { idpBroker, sharedBroker } = deps;
  const rules = new Map(deps.map.rules.map((r) => [r.name, r]));
  /** The graph a rule's shared token is kept (and minted) for. */
  const tokenGraph = (rule: string, graph: string | null): string | null =>
    !deps.graphsChecked && rules.get(rule)?.credential.kind === 'secret' ? null : graph;
  const scope = (rule: string, graph: string | null) => JSON.stringify([rule, graph]);

  /** The rule's credential refused by TigerGraph is the operator's problem, never a reason to end a person's session. */
  const asMapped = (err: unknown): never => {
    // A graph TigerGraph does not know (or the credential does not reach), named by a `*` rule's login.
    if (endsSession(err) && (err as Error).cause instanceof TigerGraphError) {
      if (((err as Error).cause as TigerGraphError).kind === 'graph_not_found')
        throw new AppError('graph_not_found', { cause: err });
    }
    if (endsSession(err)) throw new AppError('mapped_credential_refused', { cause: err });
    throw err;
  };

  const shared = async (rule: string, graph: string | null): Promise<TokenState> => {
    if (!rules.has(rule)) throw new AppError('session_expired', 'The sign-in rule is gone; log in again');
    const g = tokenGraph(rule, graph);
    return sharedBroker.token(sharedKey(rule, g), rule, deps.lifetimeMs, g ?? undefined).catch(asMapped);
  };

  const sharedRejected = async (rule: string, graph: string | null, token: string): Promise<TokenState | null> => {
    if (!rules.has(rule)) throw new AppError('session_expired', 'The sign-in rule is gone; log in again');
    // Every session of the rule that met the refusal lands here; the lease keeps it to one mint.
    const g = tokenGraph(rule, graph);
    return sharedBroker
      .replaceRejected(sharedKey(rule, g), rule, token, deps.lifetimeMs, g ?? undefined)
      .catch(asMapped);
  };

  const broker: TokenBroker = {
    mint: () => Promise.reject(new Error('a mapped login is verified by the IdP, not by a mint')),
    adopt: (sid, grant, ttl) => idpBroker.adopt(sid, grant, ttl),
    async token(sid, refreshToken, sessionTtlMs, sessionScope) {
      const { rule, graph } = parseScope(sessionScope);
      // The person's IdP tokens first: a due one is refreshed, and the claims read again, before any relay.
      await idpBroker.token(sid, refreshToken, sessionTtlMs, sessionScope);
      return shared(rule, graph);
    },
    replaceRejected: (_sid, _refreshToken, token, _ttl, sessionScope) => {
      const { rule, graph } = parseScope(sessionScope);
      return sharedRejected(rule, graph, token);
    },
    // The person's own state only: the shared token is never revoked by one person's end.
    revoke: (sid, refreshToken, opts) => idpBroker.revoke(sid, refreshToken, opts),
    discard: (refreshToken, grant) => idpBroker.discard(refreshToken, grant),
  };

  return {
    map: deps.map,
    broker,
    scope,
    shared,
    sharedRejected,
    rule: (name) => rules.get(name),
    graphsOf: (name) => rules.get(name)?.graphs,
    tokenKey: (rule, graph) => sharedKey(rule, tokenGraph(rule, graph)),
  };
}
