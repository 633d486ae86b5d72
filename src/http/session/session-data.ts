import type { CredentialIds } from '../../store/credential-id.js';
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
  /**
   * The keyed id of the credential it logged in with (credential-id.ts): what the per-credential session
   * cap and relay concurrency count by. Absent in sessions from before it existed (credentialOf derives it).
   */
  cred?: string;
  /**
   * Set for OIDC logins. Then `secret` is the IdP refresh token (sealed as the session's credential, '' when
   * the IdP gave none) and the token state holds the IdP access token; nothing here goes to TigerGraph as a
   * secret.
   */
  oidc?: OidcSessionData;
}

export interface OidcSessionData {
  /** The IdP subject (the TigerGraph user) and display name, shown by GET /auth/session. */
  sub: string;
  name?: string;
  /** The IdP session id (id token `sid`), for back-channel logout. */
  idpSid?: string;
  /** The id token, sealed for this session (sealedAs.idToken), for RP-initiated logout. */
  idToken?: string;
}

/** Which login a session came from, as GET /auth/session, GET /auth/methods and the access line name them. */
export type LoginKind = 'secret' | 'password' | 'oidc';

export const loginKindOf = (tg: TgSession): LoginKind => (tg.oidc ? 'oidc' : tg.secretAlias ? 'password' : 'secret');

/** The stored record of a session: the store's JSON shape, whose one application field is `tg`. */
export interface StoredSession extends SessionRecord {
  tg?: TgSession;
}

/** The credential id a session counts under: the one login stored, or derived the same way for older sessions. */
export function credentialOf(ids: CredentialIds, tg: TgSession, secret: string): string {
  if (tg.cred !== undefined) return tg.cred;
  if (tg.oidc) return ids('oidc', tg.oidc.sub);
  return tg.username !== undefined ? ids('user', tg.username.toLowerCase()) : ids('secret', secret);
}
