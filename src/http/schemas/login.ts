import type { z } from 'zod';
import type { AdminCredentials } from '@tigergraph-bff/client';
import { exactly, loginGraph, secret, text } from './fields.js';
import { invalidRequest, parseInput } from './parse.js';

const secretLogin = exactly({ secret, graph: loginGraph });
const passwordLogin = exactly({ username: text(128), password: text(1024), graph: loginGraph });

export type SecretLogin = z.output<typeof secretLogin>;

export interface PasswordLogin {
  creds: AdminCredentials;
  graph: string | null;
}

/** A login body asks for password login when it carries a username or password at all. */
export function wantsPasswordLogin(body: unknown): boolean {
  return (
    typeof body === 'object' && body !== null && !Array.isArray(body) && ('username' in body || 'password' in body)
  );
}

/** `{"secret": "...", "graph"?: "..."}`; anything else is 400 naming the field. */
export const parseLoginBody = (body: unknown): SecretLogin => parseInput(secretLogin, body, 'body');

/**
 * `{"username","password","graph"}`. `enabled` is false when PASSWORD_LOGIN is off, which is said plainly
 * rather than answered as bad credentials.
 */
export function parsePasswordLogin(body: unknown, opts: { enabled: boolean; graphRequired: boolean }): PasswordLogin {
  if (!opts.enabled) throw invalidRequest('Password login is disabled; log in with {"secret": "..."}');
  if (typeof body === 'object' && body !== null && 'secret' in body) {
    throw invalidRequest('secret: send either "secret" or "username" and "password", not both');
  }
  const { username, password, graph } = parseInput(passwordLogin, body, 'body');
  if (graph === null && opts.graphRequired)
    throw invalidRequest('graph: is required (secrets belong to a graph on this TigerGraph version)');
  return { creds: { username, password }, graph };
}
