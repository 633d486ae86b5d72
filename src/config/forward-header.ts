import { mayReturn, NEVER_FORWARDED } from '../relay/header-policy.js';
import { headerName, Invalid } from './fields.js';

const NEVER = new Set(NEVER_FORWARDED);
/** Sizing headers the relay sends itself, capped, when their setting is on: forwarded as given, they would not be. */
const CAPPED: ReadonlyMap<string, string> = new Map([
  ['gsql-thread-limit', 'QUERY_THREAD_LIMIT_MAX'],
  ['gsql-querylocalmemlimitmb', 'QUERY_MEMORY_LIMIT_MAX_MB'],
]);

/** One RELAY_FORWARD_HEADERS name: a valid header name the relay may forward (never credentials or overrides). */
export function forwardHeader(raw: string): string {
  const name = headerName(raw);
  if (NEVER.has(name)) throw new Invalid(`must not name ${name}: the relay never forwards it`);
  const setting = CAPPED.get(name);
  if (setting !== undefined)
    throw new Invalid(`must not name ${name}: set ${setting} instead, and the relay forwards it capped`);
  return name;
}

/** One RELAY_RESPONSE_HEADERS name: a valid header name the browser may get (never cookies, credentials or the BFF's own). */
export function responseHeader(raw: string): string {
  const name = headerName(raw);
  if (!mayReturn(name)) throw new Invalid(`must not name ${name}: the relay never passes it to the browser`);
  return name;
}
