import { z } from 'zod';
import { invalidRequest, parseInput } from './parse.js';
import { aliasName, exactly, graphName, optionalName, secret, text } from './fields.js';

const graphOnly = exactly({ graph: optionalName(graphName) });
const createSecret = exactly({ graph: optionalName(graphName), alias: optionalName(aliasName) });
const aliasPath = exactly({ alias: aliasName });

const GRAPH_REQUIRED = 'graph: is required (secrets belong to a graph on this TigerGraph version)';

/** 3.x secrets belong to a graph, so every call there must name one. */
function graphOf(graph: string | undefined, required: boolean): string | null {
  if (graph === undefined && required) throw invalidRequest(GRAPH_REQUIRED);
  return graph ?? null;
}

/** `?graph=G`, the only query parameter the admin routes read; any other is refused. */
export function parseGraphQuery(query: unknown, graphRequired: boolean): string | null {
  return graphOf(parseInput(graphOnly, query, 'query').graph, graphRequired);
}

/** `POST /admin/secrets` `{"graph"?, "alias"?}`. */
export function parseCreateSecret(
  body: unknown,
  graphRequired: boolean,
): { graph: string | null; alias: string | undefined } {
  const { graph, alias } = parseInput(createSecret, body, 'body');
  return { graph: graphOf(graph, graphRequired), alias };
}

/** `DELETE /admin/secrets/:alias`. */
export const parseAliasPath = (params: unknown): string => parseInput(aliasPath, params, 'path').alias;

const principalBody = exactly({
  user: text(128).optional(),
  subject: text(1024).optional(),
  secret: secret.optional(),
  alias: aliasName.optional(),
  owner: text(128).optional(),
  allMatching: z.boolean({ error: 'must be true or false' }).optional(),
});

/**
 * Whose sessions: a TigerGraph user (password logins), an IdP subject (single sign-on), a secret (its logins),
 * or a secret by its alias (of `owner`, default the operator; `allMatching` lets an end of a masked match span
 * several secrets).
 */
export type NamedPrincipal =
  | { kind: 'user'; value: string }
  | { kind: 'oidc'; value: string }
  | { kind: 'secret'; value: string }
  | { kind: 'alias'; alias: string; owner: string | undefined; allMatching: boolean };

/**
 * `POST /admin/sessions/list|end` `{"user"}`, `{"subject"}`, `{"secret"}` or `{"alias", "owner"?, "allMatching"?}`,
 * exactly one principal: the secret in a body, never in a URL a proxy or an access line keeps.
 */
export function parsePrincipalBody(body: unknown): NamedPrincipal {
  const { user, subject, secret: value, alias, owner, allMatching } = parseInput(principalBody, body, 'body');
  const given = [user, subject, value, alias].filter((v) => v !== undefined).length;
  if (given !== 1) throw invalidRequest('body: name exactly one of "user", "subject", "secret" or "alias"');
  if (alias === undefined && (owner !== undefined || allMatching !== undefined))
    throw invalidRequest('body: "owner" and "allMatching" go with "alias" only');
  if (alias !== undefined) return { kind: 'alias', alias, owner, allMatching: allMatching === true };
  if (user !== undefined) return { kind: 'user', value: user };
  if (subject !== undefined) return { kind: 'oidc', value: subject };
  return { kind: 'secret', value: value! };
}
