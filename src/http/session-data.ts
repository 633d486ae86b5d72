/** What a logged-in session holds. The secret is sealed with the session Cipher; nothing here is a token. */
export interface TgSession {
  /** The TigerGraph secret, encrypted (AES-256-GCM, key id inside). */
  secret: string;
  graph: string | null;
  /** Set for password logins: the admin-server user and the alias of the secret the service created. */
  username?: string;
  secretAlias?: string;
  /** Epoch ms of login; the absolute timeout counts from here. */
  createdAt: number;
}

declare module 'express-session' {
  interface SessionData {
    tg?: TgSession;
  }
}
