import type { TokenBroker } from '../../tokens/token-broker.js';
import type { KindStrategy } from '../strategy.js';

/** What a credential-map session needs of the map (oidc/mapped-sessions.ts; loaded only when SSO is on). */
export interface MappedSource {
  readonly broker: TokenBroker;
  scope(rule: string, graph: string | null): string;
  /** The key of the rule's shared token state for a graph. */
  tokenKey(rule: string, graph: string | null): string;
  /** The graphs the rule named opens (`*`: every graph its credential reaches); undefined when it is gone. */
  graphsOf(rule: string): readonly string[] | undefined;
}

/**
 * A single sign-on login admitted by a credential-map rule: everything about the person is an OIDC
 * session's (the IdP refresh token as its credential, back-channel index, IdP revocation at its end: the
 * `oidc` strategy it extends), but what goes to TigerGraph is the rule's shared token for the session's
 * graph, never the IdP's JWT, and no end of one person's session touches it. Without the map configured
 * any more such a session has no broker: it ends at its next request.
 */
export function mappedStrategy(oidc: KindStrategy, source: MappedSource | undefined): KindStrategy {
  return {
    ...oidc,
    broker: source?.broker,
    scope: (tg) => source?.scope(tg.oidc?.rule ?? '', tg.graph) ?? '',
    ...(source && { tokenKey: (tg) => source.tokenKey(tg.oidc?.rule ?? '', tg.graph) }),
    view(tg) {
      const rule = tg.oidc?.rule ?? '';
      return { ...oidc.view(tg), rule, graphs: source?.graphsOf(rule) ?? [] };
    },
  };
}
