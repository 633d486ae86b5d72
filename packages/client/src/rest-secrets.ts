import { maskSecret, TigerGraphError } from './errors.js';
import type { GsqlClient } from './gsql-client.js';
import type { HttpAnswer } from './http.js';
import { isObject } from './parse-json.js';
import { readEnvelope, type Envelope } from './parse-token-response.js';
import type { AdminCredentials, SecretRecord } from './types.js';

/**
 * The 4.1+ REST secrets API (/gsql/v1/secrets). Each call resolves to undefined when the server has
 * no such endpoint (a 404 that is not a JSON answer), so the caller can fall back to GSQL text.
 */
export async function restCreateSecret(
  gsql: GsqlClient,
  creds: AdminCredentials,
  alias: string | undefined,
): Promise<{ alias: string; secret: string } | undefined> {
  const query = alias === undefined ? '' : `?alias=${encodeURIComponent(alias)}`;
  const env = answered(await gsql.callJson(creds, 'POST', `/gsql/v1/secrets${query}`));
  if (env === undefined) return undefined;
  if (env.error) {
    if (/already exists/i.test(env.message)) {
      throw new TigerGraphError('secret_exists', `The secret with alias ${alias ?? '(generated)'} already exists.`, {
        code: 'E-00001',
      });
    }
    throw failure('CREATE SECRET', env);
  }
  const results = env.body?.['results'];
  const made = isObject(results) ? results : undefined;
  if (typeof made?.['value'] !== 'string' || typeof made['alias'] !== 'string') {
    throw new TigerGraphError('protocol', 'Failed to parse secret from response.', { code: 'E-00002' });
  }
  return { alias: made['alias'], secret: made['value'] };
}

/** Values come back in clear text on 4.x; they are masked here, as the seed says listing must. */
export async function restListSecrets(gsql: GsqlClient, creds: AdminCredentials): Promise<SecretRecord[] | undefined> {
  const env = answered(await gsql.callJson(creds, 'GET', '/gsql/v1/secrets'));
  if (env === undefined) return undefined;
  if (env.error) throw failure('SHOW SECRET', env);
  const results = env.body?.['results'];
  // The docs show one object; pyTigerGraph expects a list. Accept both.
  const items = Array.isArray(results) ? results : isObject(results) && 'alias' in results ? [results] : [];
  return items
    .filter(isObject)
    .flatMap((item) =>
      typeof item['alias'] === 'string'
        ? [{ alias: item['alias'], secret: maskSecret(String(item['value'] ?? '')) }]
        : [],
    );
}

/**
 * One secret by alias, of `userName` or the caller (`GET /gsql/v1/secrets/{alias}?userName=`). 4.1+ answers
 * the value in clear (TG docs 4.1, *User credentials*: "The API response will contain the secrets in plain
 * text"); a superuser may name another user. Undefined when the server has no such endpoint.
 */
export async function restGetSecret(
  gsql: GsqlClient,
  creds: AdminCredentials,
  alias: string,
  userName: string | undefined,
): Promise<{ alias: string; secret: string } | undefined> {
  const query = userName === undefined ? '' : `?userName=${encodeURIComponent(userName)}`;
  const answer = await gsql.callJson(creds, 'GET', `/gsql/v1/secrets/${encodeURIComponent(alias)}${query}`);
  const env = answered(answer);
  if (env === undefined) return undefined;
  if (env.error) {
    if (answer.status === 404 || /not exist|doesn't exist|not found/i.test(env.message))
      throw new TigerGraphError('secret_not_found', `No secret with alias ${alias}.`, { status: answer.status });
    // Another user's secrets need the superuser role: a refusal, not a broken server.
    if (answer.status === 403)
      throw new TigerGraphError('bad_request', `GET SECRET refused: ${env.message.slice(0, 200)}`, { status: 403 });
    throw failure('GET SECRET', env, answer.status);
  }
  const results = env.body?.['results'];
  const found = isObject(results) ? results : undefined;
  if (typeof found?.['value'] !== 'string' || found['alias'] !== alias)
    throw new TigerGraphError('protocol', 'Unexpected answer from the secrets API for one alias', {
      status: answer.status,
    });
  return { alias, secret: found['value'] };
}

export async function restDropSecret(
  gsql: GsqlClient,
  creds: AdminCredentials,
  alias: string,
): Promise<true | undefined> {
  const answer = await gsql.callJson(creds, 'DELETE', `/gsql/v1/secrets/${encodeURIComponent(alias)}`);
  const env = answered(answer);
  if (env === undefined) return undefined;
  if (!env.error) return true;
  if (answer.status === 404 || /not exist|doesn't exist|not found|Failed to drop/i.test(env.message)) {
    throw new TigerGraphError('secret_not_found', `No secret with alias ${alias} to drop.`, {
      code: env.code,
      status: answer.status,
    });
  }
  throw failure('DROP SECRET', env, answer.status);
}

function answered(answer: HttpAnswer): Envelope | undefined {
  const env = readEnvelope(answer.text);
  if (env.body === undefined && answer.status === 404) return undefined;
  if (env.body === undefined) {
    throw new TigerGraphError('protocol', `Unexpected answer from the secrets API (HTTP ${answer.status}, not JSON)`, {
      status: answer.status,
    });
  }
  // A non-2xx JSON answer without the flag still counts as a failure.
  return answer.status >= 400 && !env.error ? { ...env, error: true } : env;
}

function failure(what: string, env: Envelope, status?: number): TigerGraphError {
  return new TigerGraphError('protocol', `${what} failed: ${env.message.slice(0, 200) || 'no message'}`, {
    code: env.code,
    status,
  });
}
