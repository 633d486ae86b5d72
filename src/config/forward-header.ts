import { mayReturn, NEVER_FORWARDED } from '../relay/header-policy.js';
import { headerName, Invalid } from './fields.js';

const NEVER = new Set(NEVER_FORWARDED);

/** One RELAY_FORWARD_HEADERS name: a valid header name the relay may forward (never credentials or overrides). */
export function forwardHeader(raw: string): string {
  const name = headerName(raw);
  if (NEVER.has(name)) throw new Invalid(`must not name ${name}: the relay never forwards it`);
  return name;
}

/** One RELAY_RESPONSE_HEADERS name: a valid header name the browser may get (never cookies, credentials or the BFF's own). */
export function responseHeader(raw: string): string {
  const name = headerName(raw);
  if (!mayReturn(name)) throw new Invalid(`must not name ${name}: the relay never passes it to the browser`);
  return name;
}
