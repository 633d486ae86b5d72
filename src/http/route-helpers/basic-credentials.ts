import type { Request } from 'express';
import { AppError } from '../../errors.js';
import type { AdminCredentials } from '@tigergraph-bff/client';

/** Every 401 from /admin says how to authenticate, as HTTP requires. */
export const ADMIN_CHALLENGE = { 'WWW-Authenticate': 'Basic realm="tigergraph-bff admin"' };

const notAuthenticated = () =>
  new AppError('not_authenticated', 'Admin routes need the admin server credentials as HTTP basic auth', {
    headers: ADMIN_CHALLENGE,
  });

/** The caller's admin-server credentials from `Authorization: Basic`; used for this request only, never kept. */
export function basicCredentials(req: Request): AdminCredentials {
  const header = req.get('authorization');
  const match = header === undefined ? null : /^Basic\s+([A-Za-z0-9+/]+={0,2})\s*$/i.exec(header);
  if (match?.[1] === undefined) throw notAuthenticated();
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon <= 0 || colon === decoded.length - 1) throw notAuthenticated();
  return { username: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}
