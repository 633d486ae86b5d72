import type { SessionRecord } from '../../store/session-store.js';

/** What a logged-in session holds. The secret is sealed with the session Cipher; nothing here is a token. */
export interface TgSession {
  /** The TigerGraph secret, encrypted (AES-256-GCM, key id inside). */
  secret: string;
  graph: string | null;
  /** Set for password logins: the admin-server user and the alias of the secret the service created. */
  username?: string;
  secretAlias?: string;
  /**
   * Password logins: the secret as sealed in its drop entry (bound to the alias, not the session), so
   * logout can name that entry. Absent in sessions from before 0.2.0, whose `secret` is that value.
   */
  secretDrop?: string;
  /** Epoch ms of login; the absolute timeout counts from here. */
  createdAt: number;
}

/** The stored record of a session: the store's JSON shape, whose one application field is `tg`. */
export interface StoredSession extends SessionRecord {
  tg?: TgSession;
}
