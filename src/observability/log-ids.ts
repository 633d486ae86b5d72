import { createHmac, hkdfSync } from 'node:crypto';

/** What a log id stands for: a session id, or a user name when user names must not be logged. */
export type LogIdKind = 'session' | 'user';

/**
 * Short keyed hashes for log lines: the same session (or user) gets the same id in every line of every
 * replica, so lines can be grouped and followed, and nobody without the key can turn an id back into the
 * session id (a bearer credential) or test a guessed user name against it. 16 base64url characters (96 bits).
 */
export type LogIds = (kind: LogIdKind, value: string) => string;

/**
 * Keyed by a key derived (HKDF-SHA256, its own label, so these ids never equal a credential id of
 * store/credential-id.ts) from the signing secret every replica shares (SESSION_SECRET's first entry).
 */
export function logIds(signingSecret: string): LogIds {
  const key = Buffer.from(hkdfSync('sha256', signingSecret, '', 'tgbff log id v1', 32));
  return (kind, value) => createHmac('sha256', key).update(`${kind}\n${value}`).digest('base64url').slice(0, 16);
}
