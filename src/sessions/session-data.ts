import type { CredentialIds } from '../crypto/credential-id.js';
import type { SessionRecord } from '../store/session-store.js';

/** What a logged-in session holds. The credential is sealed with the session Cipher; nothing here is a token. */
export interface TgSession {
  /**
   * The session's credential, sealed for this session (AES-256-GCM, key id inside): a TigerGraph secret, or
   * for single sign-on the IdP refresh token (strategy.ts `SessionCredential`). The field keeps the name it
   * had before SSO, so records written by earlier versions read the same.
   */
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
   * Set for OIDC logins. Then `secret` holds the IdP refresh token (sealed, '' when the IdP gave none) and the
   * token state the IdP access token; nothing here goes to TigerGraph.
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
  /**
   * The credential-map rule that admitted the person (OIDC_CREDENTIAL_MAP): the session then relays the
   * rule's shared TigerGraph token for its graph, never the IdP's JWT (kinds/mapped.ts).
   */
  rule?: string;
}

/** The stored record of a session: the store's JSON shape, whose one application field is `tg`. */
export interface StoredSession extends SessionRecord {
  tg?: TgSession;
}

/** Which login made a session, as GET /auth/session, GET /auth/methods and the access line name them. */
export type LoginKind = 'secret' | 'password' | 'oidc';

/** The one place a stored session's kind is decided. */
export const kindOf = (tg: TgSession): LoginKind =>
  tg.oidc ? 'oidc' : tg.secretAlias !== undefined ? 'password' : 'secret';

/** The credential id a session counts under: the one login stored, or derived the same way for older sessions. */
export function credentialOf(ids: CredentialIds, tg: TgSession, credential: string): string {
  if (tg.cred !== undefined) return tg.cred;
  switch (kindOf(tg)) {
    case 'oidc':
      return ids('oidc', tg.oidc?.sub ?? '');
    case 'password':
      // Sessions of password logins from before `cred` existed: counted by user, as a login counts it now.
      return tg.username !== undefined ? ids('user', tg.username) : ids('secret', credential);
    case 'secret':
      return ids('secret', credential);
  }
}
