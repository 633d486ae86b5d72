import type { Sim } from './sim-context.js';
import type { SimSecret, SimToken, SimUser } from './state.js';

/**
 * Token operations shared by /requesttoken and /gsql/v1/tokens. Failure texts follow the attested
 * pattern "Refresh token failed, Permission denied."; codes other than REST-3300 and REST-1101, and the
 * reasons after the comma, are inferred (TigerGraph's real texts are unknown).
 */
export type Op = 'Generate' | 'Refresh' | 'Drop';

export interface TokenFailure {
  code: string;
  message: string;
  kind: 'credentials' | 'not_found' | 'bad_request' | 'graph';
}

export interface Principal {
  user: SimUser;
  secret?: SimSecret;
}

export const CODE_CREDENTIALS = 'REST-10001'; // inferred
export const CODE_BAD_REQUEST = 'REST-1104'; // inferred
export const CODE_NOT_FOUND = 'REST-3300';

const DAY = 86_400;
export const DEFAULT_LIFETIME_3X = 30 * DAY;
export const DEFAULT_LIFETIME_JWT = 7 * DAY;

const fail = (kind: TokenFailure['kind'], code: string, op: Op, reason: string): TokenFailure => ({
  kind,
  code,
  message: `${op} token failed, ${reason}`,
});

export const isFailure = (value: unknown): value is TokenFailure =>
  typeof value === 'object' && value !== null && 'kind' in value && 'message' in value;

/**
 * Lifetime in seconds. 4.x documents milliseconds while its clients send seconds, so on 4.x values
 * of at least 1e8 are read as milliseconds (1e8 s would be over three years).
 */
export function parseLifetime(sim: Sim, raw: unknown, op: Op, jwt: boolean): number | TokenFailure {
  if (raw === undefined || raw === null || raw === '') return jwt ? DEFAULT_LIFETIME_JWT : DEFAULT_LIFETIME_3X;
  const n =
    typeof raw === 'number' ? raw : typeof raw === 'string' && /^\s*\d+(\.\d+)?\s*$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isFinite(n) || n <= 0) {
    return fail(
      'bad_request',
      CODE_BAD_REQUEST,
      op,
      `the lifetime '${String(raw).slice(0, 40)}' is not a positive number.`,
    );
  }
  const seconds = sim.version.v4 && n >= 1e8 ? n / 1000 : n;
  return Math.max(1, Math.floor(seconds));
}

export function principalFromSecret(sim: Sim, secret: string, op: Op): Principal | TokenFailure {
  const record = sim.state.findSecret(secret);
  const user = record && sim.state.users.get(record.user);
  if (!record || !user) return fail('credentials', CODE_CREDENTIALS, op, 'the secret is invalid.');
  return { user, secret: record };
}

export function principalFromBasic(sim: Sim, authorization: string | undefined, op: Op): Principal | TokenFailure {
  const creds = parseBasic(authorization);
  const found = creds && sim.state.login(creds.name, creds.password);
  if (!found) {
    return creds
      ? fail('credentials', CODE_CREDENTIALS, op, 'the username or password is wrong.')
      : fail('bad_request', CODE_BAD_REQUEST, op, 'a secret or a username and password is required.');
  }
  return found.secret ? { user: found.user, secret: found.secret } : { user: found.user };
}

export function parseBasic(authorization: string | undefined): { name: string; password: string } | undefined {
  if (!authorization || !/^basic /i.test(authorization)) return undefined;
  const decoded = Buffer.from(authorization.slice(6).trim(), 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon < 0 ? undefined : { name: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

export function mint(
  sim: Sim,
  who: Principal,
  opts: { graph?: string | undefined; lifetime: number; jwt: boolean; graphRequired: boolean },
): SimToken | TokenFailure {
  // 3.x secrets carry their graph, and a graph named beside one must be that graph [infer: 3.11's sample sends
  // both; TigerGraph's answer to a mismatch is not public, so it is the no-access answer below, naming the
  // graph]. 4.1+ secrets are graph-free: a graph in the body scopes the token, if the user may use it.
  const secretGraph = opts.jwt ? undefined : who.secret?.graph;
  if (secretGraph && opts.graph && opts.graph !== secretGraph) {
    return fail(
      'graph',
      CODE_CREDENTIALS,
      'Generate',
      `the secret is not for graph '${opts.graph}', or it does not exist.`,
    );
  }
  const graph = secretGraph ?? (opts.graph || who.secret?.graph);
  if (!graph && opts.graphRequired)
    return fail('bad_request', CODE_BAD_REQUEST, 'Generate', 'a graph name is required.');
  if (graph && !sim.state.canUseGraph(who.user, graph)) {
    return fail(
      'graph',
      CODE_CREDENTIALS,
      'Generate',
      `the user has no access to graph '${graph}' or it does not exist.`,
    );
  }
  return sim.state.mintToken({
    user: who.user.name,
    ...(graph ? { graph } : {}),
    ...(who.secret ? { secret: who.secret } : {}),
    lifetime: opts.lifetime,
    jwt: opts.jwt,
  });
}

/** The caller's live token, or why not. Expired tokens count as gone, as after TigerGraph's cleaner. */
export function ownedToken(sim: Sim, who: Principal, token: string | undefined, op: Op): SimToken | TokenFailure {
  if (!token) return fail('bad_request', CODE_BAD_REQUEST, op, 'a token is required.');
  const found = sim.state.lookupToken(token);
  if (found.state !== 'ok') return fail('not_found', CODE_NOT_FOUND, op, `the token doesn't exist.`);
  if (found.record.user !== who.user.name && !who.user.superuser) {
    return fail('credentials', CODE_CREDENTIALS, op, 'Permission denied.');
  }
  return found.record;
}
