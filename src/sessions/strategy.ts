import type { SecretDrop } from '../store/secret-drops.js';
import type { TokenGrant } from '@tigergraph-bff/client';
import type { TokenBroker } from '../tokens/token-broker.js';
import type { SessionEnd } from '../tokens/session-ends.js';
import type { LoginKind, TgSession } from './session-data.js';

export { kindOf, type LoginKind } from './session-data.js';

/** What ends a session: logged in `end(sid, reason)` and passed to the kind's strategy. */
export type EndReason =
  /** POST /auth/logout, GET /auth/oidc/logout. */
  | 'logout'
  /** A new login on the same browser session. */
  | 'replaced'
  /** A login beyond SESSIONS_PER_CREDENTIAL ended the credential's oldest. */
  | 'evicted'
  /** The person ended it from another of their sessions (DELETE /auth/sessions…, logout everywhere). */
  | 'ended'
  /** An operator ended it (the admin route, `tgbff sessions end`). */
  | 'operator'
  /** The IdP ended its session (POST /auth/oidc/backchannel-logout). */
  | 'backchannel'
  /** The IdP refused to refresh the session's access token. */
  | 'idp_refused'
  /** Found over by the session-end sweeper: idle or absolute timeout, a record removed. */
  | 'swept';

/** A verified login, by kind: what `establish` makes a session of. Nothing in it is sealed yet. */
export type Login = {
  graph: string | null;
  /** The keyed id of the credential (credential-id.ts). */
  cred: string;
  /** The access token the credential check got, adopted as the session's token state. */
  grant: TokenGrant;
  /** Epoch ms the login began: the absolute timeout counts from here. */
  at: number;
  /** Where the login came from, as the person's session list shows it (http/route-helpers/login-origin.ts). */
  from?: { client?: string; address?: string };
} & (
  | { kind: 'secret'; secret: string }
  | { kind: 'password'; secret: string; username: string; drop: SecretDrop }
  | {
      kind: 'oidc';
      /** The IdP refresh token ('' when the IdP gave none). */
      refreshToken: string;
      sub: string;
      name?: string;
      idpSid?: string;
      idToken?: string;
      /** The credential-map rule that admitted the person; absent: the IdP's JWT is relayed. */
      rule?: string;
    }
);

/**
 * A session's credential in clear, by kind: a TigerGraph secret (the user's own, or the one a password login
 * created), or an IdP refresh token. Stored sealed in the record's `secret` field whatever the kind (the
 * field keeps its name so records written by earlier versions still read).
 */
export type SessionCredential =
  { kind: 'secret' | 'password'; secret: string } | { kind: 'oidc'; refreshToken: string };

export const credentialAs = (kind: LoginKind, clear: string): SessionCredential =>
  kind === 'oidc' ? { kind, refreshToken: clear } : { kind, secret: clear };

/** The credential in clear, as a broker takes it (its `credential` parameter). */
export const clearCredential = (c: SessionCredential): string => (c.kind === 'oidc' ? c.refreshToken : c.secret);

/** The credential a login holds. */
export const credentialOfLogin = (login: Login): SessionCredential =>
  login.kind === 'oidc'
    ? { kind: 'oidc', refreshToken: login.refreshToken }
    : { kind: login.kind, secret: login.secret };

/** A session being ended, as the kind's strategy sees it. */
export interface Ending {
  sid: string;
  /** Its session-end entry (all the sweeper has: the record may be gone). */
  entry: SessionEnd;
  /** The session's credential unsealed. */
  credential: SessionCredential;
  reason: EndReason;
  /** The stored session, when the caller has it (not the sweeper). */
  tg?: TgSession;
  /** The sweeper's call: a failure rejects and keeps the token state for its retry. Otherwise logged. */
  retry: boolean;
}

/**
 * What differs between login kinds, in one object per kind (src/sessions/kinds/): everything else about
 * starting and ending a session is the lifecycle's (lifecycle.ts), the same for all kinds.
 */
export interface KindStrategy {
  readonly kind: LoginKind;
  /** The broker that keeps this kind's access token; undefined when the login is not configured any more. */
  readonly broker: TokenBroker | undefined;
  /** A renewal the upstream refused for good ends the session then and there (an IdP refusing its refresh token). */
  readonly refusalEnds: boolean;
  /** The kind's own stored fields, sealed for `sid`. */
  fields(sid: string, login: Login): Partial<TgSession>;
  /** Records the kind keeps beside the session, written at login after the token state (OIDC: its index). */
  index(sid: string, tg: TgSession): Promise<void>;
  /** What the session held upstream, ended (token, password-login secret, IdP tokens). True: a token was deleted. */
  revoke(ending: Ending): Promise<boolean>;
  /** A login that failed part way (`sid` undefined: before it had one): what it made upstream, undone. */
  abandon(sid: string | undefined, login: Login): Promise<void>;
  /** What GET /auth/session shows of this kind, beyond what every session shows. */
  view(tg: TgSession): Record<string, string | readonly string[]>;
  /**
   * What the broker's `graph` parameter carries for this session, when not the session's graph (a
   * credential-map session's scope: its rule and graph). Absent: the graph.
   */
  scope?(tg: TgSession): string;
  /** Where the session's TigerGraph token state is kept, when not under its own id (a credential-map rule's). */
  tokenKey?(tg: TgSession): string;
}
