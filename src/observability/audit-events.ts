/**
 * The audit trail's events: the one list of what a security team can keep, documented in docs/audit.md
 * and docs/audit.schema.json (a test validates every emitted event against the schema). Fields are names,
 * kinds, keyed hashes, aliases and addresses: never a secret, token, password, cookie or session id.
 */

export type LoginKind = 'secret' | 'password' | 'oidc';

/** Who, as the access line names them (http/session/principal.ts): never the session id itself. */
export interface AuditPrincipal {
  login: LoginKind;
  user?: string;
  graph?: string;
  /** The credential-map rule that admitted an SSO user. */
  rule?: string;
  /** The keyed hash of the session id. */
  session: string;
}

/** Why a session ended. */
export type SessionEndReason =
  'logout' | 'replaced' | 'expired' | 'backchannel' | 'idp_refused' | 'evicted' | 'ended' | 'operator';

export type AuditEvent =
  | { event: 'config.loaded'; settings: string[]; tracing: boolean; audit: 'stdout' | 'file' }
  | ({ event: 'login.succeeded'; address?: string } & AuditPrincipal)
  | {
      event: 'login.refused';
      login: LoginKind;
      /** not_permitted, claims_invalid, graph_not_permitted: the credential map refused an SSO user. */
      reason: 'invalid' | 'error' | 'not_permitted' | 'claims_invalid' | 'graph_not_permitted';
      address?: string;
    }
  | { event: 'login.limited'; login: LoginKind; address?: string; repeated?: number }
  | ({ event: 'logout' } & AuditPrincipal)
  | ({
      event: 'session.ended';
      reason: SessionEndReason;
      /** Who asked (`ended`, `operator`): another session of the person by its keyed hash, or the operator's name. */
      by?: { session: string } | { operator: string };
    } & Partial<AuditPrincipal> & { session: string })
  | { event: 'token.minted' | 'token.refreshed' | 'token.deleted'; result: 'ok' | 'error'; session?: string }
  | { event: 'token.reminted'; session: string }
  | { event: 'secret.created' | 'secret.dropped'; alias: string; by: 'password_login' | 'admin'; user?: string }
  | {
      /** An AI agent's tool call over MCP (src/mcp/), for the person `principal` names (a keyed hash of the IdP subject). */
      event: 'mcp.tool_called';
      tool: string;
      principal: string;
      rule?: string;
      result: 'ok' | 'refused';
      /** Why it was refused: the service's error code, or upstream_<status>. */
      code?: string;
    }
  | {
      event: 'limiter.tripped';
      limit: 'guess' | 'login_budget' | 'session_routes' | 'relay_concurrency' | 'quota' | 'audit';
      scope: string;
      route?: string;
      address?: string;
      /** This many more of the same event in the window, not written one by one (audit-repeats.ts). */
      repeated?: number;
    };

export type AuditEventName = AuditEvent['event'];
