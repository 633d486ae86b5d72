import { maskToken } from './data-auth.js';
import { javaDateString } from './dates.js';
import { applyTokenFaults } from './faults.js';
import { gsqlPrincipal } from './gsql-auth.js';
import { sendJson } from './http-server.js';
import { parseLenientObject, stringField } from './lenient-json.js';
import type { Sim, SimRequest } from './sim-context.js';
import {
  isFailure,
  mint,
  parseLifetime,
  principalFromBasic,
  principalFromSecret,
  type TokenFailure,
} from './token-ops.js';

const failureStatus = (f: TokenFailure): number => (f.kind === 'credentials' ? 401 : 400);
const gsqlError = (r: SimRequest, status: number, message: string) => sendJson(r.res, status, { error: true, message });

/** 4.1+ `POST|DELETE /gsql/v1/tokens` and `POST /gsql/v1/tokens/check`. Error texts are inferred. */
export async function handleGsqlTokens(sim: Sim, r: SimRequest, check: boolean): Promise<void> {
  const body = parseLenientObject(r.bodyText);
  if (check && r.method === 'POST') return checkToken(sim, r, stringField(body, 'token') ?? '');
  if (!check && (r.method === 'POST' || r.method === 'DELETE')) {
    if (await applyTokenFaults(sim, r.res)) return;
    return r.method === 'POST' ? generate(sim, r, body) : drop(sim, r, body);
  }
  gsqlError(r, 405, `Method ${r.method} is not allowed.`);
}

function generate(sim: Sim, r: SimRequest, body: Record<string, unknown> | undefined): void {
  const secret = stringField(body, 'secret');
  const who = secret
    ? principalFromSecret(sim, secret, 'Generate')
    : principalFromBasic(sim, r.req.headers.authorization, 'Generate');
  if (isFailure(who)) return gsqlError(r, who.kind === 'bad_request' ? 401 : failureStatus(who), who.message);
  const lifetime = parseLifetime(sim, body?.['lifetime'], 'Generate', true);
  if (isFailure(lifetime)) return gsqlError(r, 400, lifetime.message);
  const record = mint(sim, who, { graph: stringField(body, 'graph'), lifetime, jwt: true, graphRequired: false });
  if (isFailure(record)) return gsqlError(r, failureStatus(record), record.message);
  const omit = sim.omitTokenExpiration;
  sendJson(r.res, 200, {
    ...(omit ? {} : { expiration: javaDateString(record.expiresAt) }),
    error: false,
    message: 'Generate new JWT token successfully.',
    token: record.token,
  });
}

/** JWTs cannot be revoked, so TigerGraph block-lists them; dropping one again is harmless. */
function drop(sim: Sim, r: SimRequest, body: Record<string, unknown> | undefined): void {
  const who = gsqlPrincipal(sim, r);
  if (!who) return gsqlError(r, 401, 'You are not authorized to use this API.');
  if (r.query.get('clear') === 'true')
    return sendJson(r.res, 200, { error: false, message: 'Successfully cleared the token block list.' });
  const raw = body?.['tokens'];
  const tokens = (Array.isArray(raw) ? raw.map(String) : typeof raw === 'string' ? raw.split(',') : [])
    .map((t) => t.trim())
    .filter(Boolean);
  if (tokens.length === 0) return gsqlError(r, 400, 'Failed to drop tokens: no tokens were given.');
  for (const token of tokens) {
    const claims = sim.jwt.verify(token);
    if (!claims)
      return gsqlError(r, 400, `Failed to drop tokens: the token '${maskToken(token)}' is not a valid token.`);
    if (claims.sub !== who.user.name && !who.user.superuser)
      return gsqlError(r, 403, 'Drop token failed, Permission denied.');
  }
  for (const token of tokens) sim.state.revokeToken(token);
  sendJson(r.res, 200, { error: false, message: 'Successfully dropped the specified JWT tokens' });
}

// The documented answer echoes the whole token; it is masked here so test logs never hold one.
function checkToken(sim: Sim, r: SimRequest, token: string): void {
  const found = sim.state.lookupToken(token);
  if (found.state !== 'ok' || !sim.jwt.verify(token)) {
    return gsqlError(r, 400, `The token ${maskToken(token)} verification failed.`);
  }
  sendJson(r.res, 200, { error: false, message: `The token ${maskToken(token)} verification succeed.` });
}
