import { z } from 'zod';
import { exactly } from './fields.js';
import { parseInput } from './parse.js';

const logout = exactly({ everywhere: z.boolean({ error: 'must be true or false' }).optional() });

/** `POST /auth/logout` `{"everywhere"?: boolean}`; no body is `{}`. */
export function parseLogoutBody(body: unknown): { everywhere: boolean } {
  if (body === undefined) return { everywhere: false };
  return { everywhere: parseInput(logout, body, 'body').everywhere === true };
}

/** A session handle (GET /auth/sessions `id`): what a keyed hash of 16 base64url characters looks like. */
const HANDLE = /^[A-Za-z0-9_-]{16}$/;

/**
 * `DELETE /auth/sessions/:id`. Anything that is not a handle of the caller's is "not found", malformed or
 * not: the answer says nothing of other people's sessions.
 */
export const isSessionHandle = (id: unknown): id is string => typeof id === 'string' && HANDLE.test(id);
