import type { MappedSessions } from '../oidc/mapped-sessions.js';
import { firstMatch } from '../oidc/credential-rules.js';
import type { RelayAuth } from '../relay/relay.js';
import type { McpPerson } from './bearer.js';

/**
 * What a person reaches TigerGraph with, as a browser session of theirs would: with OIDC_CREDENTIAL_MAP the
 * rule their token's claims meet (its graphs, its shared TigerGraph token, minted and kept by the map's broker
 * across instances); without it, their own JWT relayed (TigerGraph 3.10+ checks it). Either way the token
 * goes only to TigerGraph, through the relay; nothing of it is ever in an answer to the agent.
 */
export interface PersonAccess {
  /** Graphs whose queries become tools (TigerGraph still refuses a graph it does not open to them). */
  graphs: readonly string[];
  /** Who sees the same catalog: the rule (one shared token) or the person. */
  catalogKey: string;
  /** The credential-map rule, for the audit trail. */
  rule?: string;
  auth(graph: string): RelayAuth;
}

export function personAccess(
  person: McpPerson,
  principal: string,
  opts: { mapped?: MappedSessions; graphs: readonly string[] },
): PersonAccess {
  const mapped = opts.mapped;
  if (mapped === undefined) {
    return {
      graphs: opts.graphs,
      catalogKey: `p:${principal}`,
      // 3.10+: TigerGraph verifies the person's own JWT; a refused one is not replaced (the agent gets a new one).
      auth: () => ({ token: () => Promise.resolve(person.token), rejected: () => Promise.resolve(null) }),
    };
  }
  // No rule admits them: no graphs, so no tools (the same claims would be refused a browser login).
  const rule = firstMatch(mapped.map, person.claims);
  if (rule === null) return { graphs: [], catalogKey: `none`, auth: () => unreachable };
  const graphs = rule.graphs.includes('*') ? opts.graphs : rule.graphs;
  return {
    graphs,
    catalogKey: `r:${rule.name}`,
    rule: rule.name,
    auth: (graph) => ({
      token: () => mapped.shared(rule.name, graph).then((s) => s.token),
      rejected: (token) => mapped.sharedRejected(rule.name, graph, token).then((s) => s?.token ?? null),
    }),
  };
}

const unreachable: RelayAuth = {
  token: () => Promise.reject(new Error('no rule admits this person')),
  rejected: () => Promise.resolve(null),
};
