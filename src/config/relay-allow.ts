import { parseRelayAllow } from '../relay/allowlist.js';
import { Invalid } from './fields.js';

/**
 * RELAY_ALLOW checked when the settings are read, so a bad entry is reported with the other bad keys
 * rather than failing later when the relay is built. The value is kept as written; the relay parses it.
 */
export function relayAllowSpec(raw: string): string {
  try {
    parseRelayAllow(raw);
  } catch (err) {
    throw new Invalid((err as Error).message.replace(/^RELAY_ALLOW /, ''));
  }
  return raw;
}
