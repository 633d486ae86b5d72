import { gsqlPrincipal } from './gsql-auth.js';
import { sendJson } from './http-server.js';
import { parseLenientObject } from './lenient-json.js';
import type { Sim, SimRequest } from './sim-context.js';
import type { SimSecret } from './state.js';

const gsqlError = (r: SimRequest, status: number, message: string) => sendJson(r.res, status, { error: true, message });
const view = (s: SimSecret) => ({ alias: s.alias, value: s.value });

/**
 * 4.1+ REST secrets API (`/gsql/v1/secrets[/{alias}]`). Success shapes are the documented samples; the
 * list answer is an array (what pyTigerGraph reads); error texts are inferred. Values are answered in clear,
 * as TigerGraph does here (unlike SHOW SECRET): docs/tigergraph-wire.md §4.3.
 */
export function handleSecretsApi(sim: Sim, r: SimRequest, alias: string | undefined): void {
  const who = gsqlPrincipal(sim, r);
  if (!who) return gsqlError(r, 401, 'You are not authorized to use this API.');
  const userName = r.query.get('userName') ?? who.user.name;
  if (userName !== who.user.name && !who.user.superuser) {
    return gsqlError(r, 403, 'Permission denied: only a superuser can manage the secrets of another user.');
  }
  if (!sim.state.users.has(userName)) return gsqlError(r, 400, `The user "${userName}" does not exist.`);

  if (r.method === 'POST' && alias === undefined) {
    const wanted = r.query.get('alias') ?? undefined;
    const value = r.query.get('value') ?? undefined;
    try {
      const secret = sim.state.createSecret({
        user: userName,
        ...(wanted ? { alias: wanted } : {}),
        ...(value ? { value } : {}),
      });
      return sendJson(r.res, 200, { error: false, message: '', results: view(secret) });
    } catch {
      return gsqlError(r, 409, `The secret alias "${wanted}" already exists for user "${userName}".`);
    }
  }
  if (r.method === 'GET' && alias === undefined) {
    return sendJson(r.res, 200, { error: false, message: '', results: sim.state.secretsOf(userName).map(view) });
  }
  if (r.method === 'GET') {
    const secret = sim.state.secretsOf(userName).find((s) => s.alias === alias);
    if (!secret) return gsqlError(r, 404, `The secret alias "${alias}" does not exist for user "${userName}".`);
    return sendJson(r.res, 200, { error: false, message: '', results: view(secret) });
  }
  if (r.method === 'DELETE') {
    const raw = alias !== undefined ? [alias] : parseLenientObject(r.bodyText)?.['secrets'];
    const names = Array.isArray(raw) ? raw.map(String) : typeof raw === 'string' ? [raw] : [];
    const found = names.map((n) => sim.state.findUserSecret(userName, n));
    if (names.length === 0 || found.some((s) => s === undefined)) {
      return gsqlError(r, 404, `Failed to remove the secrets for user ${userName}: some secrets do not exist.`);
    }
    for (const secret of found) sim.state.dropSecret(secret!);
    return sendJson(r.res, 200, { error: false, message: `Successfully removed the secrets for user ${userName}.` });
  }
  gsqlError(r, 405, `Method ${r.method} is not allowed.`);
}
