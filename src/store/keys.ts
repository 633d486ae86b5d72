/**
 * Redis key names (public contract, DESIGN §2). The `{sid}` hash tag puts all keys of one session in
 * one Cluster slot, so multi-key scripts and MULTI stay legal there.
 */
export interface SessionKeys {
  session(sid: string): string;
  token(sid: string): string;
  lease(sid: string): string;
  tombstone(sid: string): string;
  rateLimit(key: string): string;
  /** A credential's sessions: one key per credential id, so its own `{…}` hash tag. */
  credentialSessions(credential: string): string;
}

export function sessionKeys(prefix: string): SessionKeys {
  return {
    session: (sid) => `${prefix}sess:{${sid}}`,
    token: (sid) => `${prefix}tok:{${sid}}`,
    lease: (sid) => `${prefix}lease:{${sid}}`,
    tombstone: (sid) => `${prefix}dead:{${sid}}`,
    rateLimit: (key) => `${prefix}rl:${key}`,
    credentialSessions: (credential) => `${prefix}creds:{${credential}}`,
  };
}
