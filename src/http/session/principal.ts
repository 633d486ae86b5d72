import type { LogIds } from '../../observability/log-ids.js';
import { ShortCache } from '../../cache/short-cache.js';
import { kindOf, type LoginKind, type TgSession } from '../../sessions/session-data.js';

/** Who a logged-in request came from, as its access line names them: never a secret, token or session id. */
export interface Principal {
  login: LoginKind;
  /** The TigerGraph user (password login) or the IdP subject (OIDC); a keyed hash with LOG_USER_NAMES=hashed. */
  user?: string;
  graph?: string;
  /** The credential-map rule that admitted an SSO user (OIDC_CREDENTIAL_MAP), beside the subject. */
  rule?: string;
  /** A keyed hash of the session id (observability/log-ids.ts): follows one session, reveals nothing. */
  session: string;
}

export type DescribePrincipal = (sid: string, tg: TgSession) => Principal;

/** How long a session's log id is remembered: one HMAC per session per minute, not one per request. */
const MEMO_MS = 60_000;

/**
 * The principal of a session for the access line. A secret login has no user name to show (the secret
 * stands for a TigerGraph user the service never learns): its line names the login kind and session.
 */
export function describePrincipal(ids: LogIds, options: { hashUserNames: boolean }): DescribePrincipal {
  const sessions = new ShortCache<string>(MEMO_MS, 10_000);
  const users = new ShortCache<string>(MEMO_MS, 10_000);
  const sessionId = (sid: string): string => {
    let id = sessions.get(sid);
    if (id === undefined) {
      id = ids('session', sid);
      sessions.set(sid, id);
    }
    return id;
  };
  const userName = (name: string): string => {
    if (!options.hashUserNames) return name;
    let id = users.get(name);
    if (id === undefined) {
      id = ids('user', name);
      users.set(name, id);
    }
    return id;
  };
  return (sid, tg) => {
    const name = tg.oidc?.sub ?? tg.username;
    return {
      login: kindOf(tg),
      ...(name !== undefined && { user: userName(name) }),
      ...(tg.graph !== null && { graph: tg.graph }),
      ...(tg.oidc?.rule !== undefined && { rule: tg.oidc.rule }),
      session: sessionId(sid),
    };
  };
}
