import { AppError } from '../../errors.js';
import type { AdminCredentials } from '../../tigergraph/types.js';

export interface PasswordLogin {
  creds: AdminCredentials;
  graph: string | null;
}

const GRAPH_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;

const invalid = (message: string) => new AppError(400, 'invalid_request', message);

/** A login body asks for password login when it carries a username or password at all. */
export function wantsPasswordLogin(body: unknown): boolean {
  return typeof body === 'object' && body !== null && !Array.isArray(body) && ('username' in body || 'password' in body);
}

/**
 * Validates `{"username","password","graph"}`; errors name the field, never echo its value. `enabled`
 * is false when PASSWORD_LOGIN is off, which is said plainly rather than answered as bad credentials.
 */
export function parsePasswordLogin(body: unknown, opts: { enabled: boolean; graphRequired: boolean }): PasswordLogin {
  if (!opts.enabled) throw invalid('Password login is disabled; log in with {"secret": "..."}');
  const { username, password, graph, secret } = body as Record<string, unknown>;
  if (secret !== undefined) throw invalid('Send either "secret" or "username" and "password", not both');
  if (typeof username !== 'string' || username.length === 0) throw invalid('"username" must be a non-empty string');
  if (username.length > 128) throw invalid('"username" is too long');
  if (typeof password !== 'string' || password.length === 0) throw invalid('"password" must be a non-empty string');
  if (password.length > 1024) throw invalid('"password" is too long');
  if (graph !== undefined && graph !== null && (typeof graph !== 'string' || !GRAPH_NAME.test(graph))) {
    throw invalid('"graph" must be a graph name');
  }
  if (typeof graph !== 'string' && opts.graphRequired) throw invalid('"graph" is required (secrets belong to a graph on this TigerGraph version)');
  return { creds: { username, password }, graph: typeof graph === 'string' ? graph : null };
}
