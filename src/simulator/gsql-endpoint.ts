import { gsqlPrincipal } from './gsql-auth.js';
import { handleGsqlTokens } from './gsql-tokens.js';
import { sendJson, sendText } from './http-server.js';
import { handleSecretsApi } from './secrets-api.js';
import type { Sim, SimRequest } from './sim-context.js';
import { runStatements } from './statements.js';

const PING = JSON.stringify({ error: 'false', message: 'pong', results: {} });

/** The admin (GSQL) server's own routes, i.e. everything on the gsql port outside /restpp. */
export async function handleGsql(sim: Sim, r: SimRequest): Promise<void> {
  const { method, path } = r;
  const v41 = sim.version.era === 'jwt';
  if (path === '/api/ping' && method === 'GET') return sendJson(r.res, 200, PING);
  if (path === '/gsqlserver/gsql/file' && method === 'POST') return statements(sim, r, formDecode(r.bodyText));
  // <4.1 answers 404 here, which is how clients know to fall back to /gsqlserver/gsql/file.
  if (v41 && path === '/gsql/v1/statements' && method === 'POST') return statements(sim, r, r.bodyText);
  if (v41 && path === '/gsql/v1/tokens') return handleGsqlTokens(sim, r, false);
  if (v41 && path === '/gsql/v1/tokens/check') return handleGsqlTokens(sim, r, true);
  if (v41 && path === '/gsql/v1/secrets') return handleSecretsApi(sim, r, undefined);
  if (v41 && path.startsWith('/gsql/v1/secrets/') && path.split('/').length === 5) {
    return handleSecretsApi(sim, r, formDecode(path.slice('/gsql/v1/secrets/'.length)));
  }
  sendJson(r.res, 404, { error: true, message: `Route ${method} ${path} not found.` }); // inferred
}

function statements(sim: Sim, r: SimRequest, text: string): void {
  const who = gsqlPrincipal(sim, r);
  if (!who) return sendText(r.res, 401, 'Authentication failed: wrong username or password.\n'); // inferred
  sendText(r.res, 200, runStatements(sim, who, text));
}

/** pyTigerGraph sends the GSQL text `quote_plus`-encoded as the whole body; raw text passes through. */
function formDecode(body: string): string {
  try {
    return decodeURIComponent(body.replace(/\+/g, ' '));
  } catch {
    return body;
  }
}
