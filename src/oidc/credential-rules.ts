import { AppError } from '../errors.js';
import type { CredentialMap, MapRule } from '../config/credential-map.js';

/**
 * Which rule of the credential map (config/credential-map.ts) a person's IdP claims meet, and which graph a
 * login of theirs gets. Claims come from an IdP we trust to sign them, but their content is the directory's:
 * a group list may be huge, a value may be an object or a number, a name may look like a path. Values are
 * only ever compared for equality with the map's own strings, never used as keys, paths or log text, and a
 * claim beyond the bounds below is refused outright rather than cut (a cut list could drop the group that
 * decides). Nothing is stored for a refused login.
 */
export const CLAIM_LIMITS = { values: 1000, valueLength: 512 } as const;

export interface RuleMatch {
  rule: MapRule;
}

/** The claims are not of a shape the map can be read against (hostile or misconfigured): refused, not stored. */
export const claimsRefused = (why: string): AppError =>
  new AppError('sso_claims_invalid', `The identity provider's claims cannot be used: ${why}`);

export const notPermitted = (): AppError =>
  new AppError('sso_not_permitted', 'No sign-in rule of this service admits you; ask for access');

export const graphNotPermitted = (): AppError =>
  new AppError('graph_not_permitted', 'Your sign-in rule does not open that graph');

/** The values at a dotted claim path: a string or an array of strings; absent is none; anything else refused. */
export function claimValues(claims: Record<string, unknown>, path: string): readonly string[] {
  let at: unknown = claims;
  for (const part of path.split('.')) {
    if (at === null || typeof at !== 'object' || Array.isArray(at) || !Object.hasOwn(at, part)) return [];
    at = (at as Record<string, unknown>)[part];
  }
  if (at === undefined || at === null) return [];
  const list: unknown[] = typeof at === 'string' ? [at] : Array.isArray(at) ? at : [at];
  if (list.length > CLAIM_LIMITS.values) throw claimsRefused(`${path} lists more than ${CLAIM_LIMITS.values} values`);
  for (const v of list) {
    if (typeof v !== 'string') throw claimsRefused(`${path} holds something other than strings`);
    if (v.length > CLAIM_LIMITS.valueLength)
      throw claimsRefused(`${path} holds a value longer than ${CLAIM_LIMITS.valueLength} characters`);
  }
  return list as string[];
}

/** The first rule the claims meet, or null. Throws `sso_claims_invalid` for a claim the rules read that is hostile. */
export function firstMatch(map: CredentialMap, claims: Record<string, unknown>): MapRule | null {
  const sub = typeof claims.sub === 'string' ? claims.sub : undefined;
  const email = typeof claims.email === 'string' && claims.email_verified === true ? claims.email : undefined;
  const read = new Map<string, ReadonlySet<string>>();
  const valuesAt = (path: string): ReadonlySet<string> => {
    let values = read.get(path);
    if (values === undefined) {
      values = new Set(claimValues(claims, path));
      read.set(path, values);
    }
    return values;
  };
  for (const rule of map.rules) {
    if (rule.sub !== undefined && rule.sub === sub) return rule;
    if (rule.email !== undefined && rule.email === email) return rule;
    if (rule.match.length > 0) {
      const values = valuesAt(rule.claim);
      if (rule.match.some((m) => values.has(m))) return rule;
    }
  }
  return null;
}

/** The rule's graphs as the page shows them: names, or `*` for every graph the credential reaches. */
export const graphsOf = (rule: MapRule): readonly string[] => rule.graphs;

export const opens = (rule: MapRule, graph: string | null): boolean =>
  rule.graphs.includes('*') || (graph !== null && rule.graphs.includes(graph));

/**
 * The graph a login gets: the one it asked for, if the rule opens it; without one, the rule's first graph
 * (null for `*`: the credential's own reach). A password credential mints per graph, so it needs one.
 */
export function graphFor(rule: MapRule, requested: string | null): string | null {
  if (requested !== null) {
    if (!opens(rule, requested)) throw graphNotPermitted();
    return requested;
  }
  const first = rule.graphs[0]!;
  if (first !== '*') return first;
  if (rule.credential.kind === 'password')
    throw new AppError('graph_not_permitted', 'Name the graph to sign in to (?graph=…): your rule opens several');
  return null;
}
