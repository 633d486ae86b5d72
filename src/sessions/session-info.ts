import type { LoginKind } from './session-data.js';

/**
 * What a principal's session list shows of a session besides its times, kept beside its id on the
 * credential's record (store `CredentialSessions`) when it logs in: never a secret, token or session id.
 * `pending` until the login saved the session: another login then neither prunes it as gone nor leaves it
 * uncounted (issue 42, item 3).
 */
export interface SessionInfo {
  login: LoginKind;
  graph: string | null;
  /** A short browser and OS description from the login's User-Agent (login-origin.ts), bounded. */
  client?: string;
  /** The login's client address, coarsened (IPv4 /24, IPv6 /48). */
  address?: string;
  pending?: true;
}

const KINDS: ReadonlySet<string> = new Set(['secret', 'password', 'oidc']);

export const encodeInfo = (info: SessionInfo): string => JSON.stringify(info);

/** The stored text back; null for none, or for text this version cannot read (it is only shown, never trusted). */
export function decodeInfo(text: string | null): SessionInfo | null {
  if (text === null) return null;
  try {
    const raw = JSON.parse(text) as Partial<Record<keyof SessionInfo, unknown>>;
    if (typeof raw.login !== 'string' || !KINDS.has(raw.login)) return null;
    return {
      login: raw.login as LoginKind,
      graph: typeof raw.graph === 'string' ? raw.graph : null,
      ...(typeof raw.client === 'string' && { client: raw.client }),
      ...(typeof raw.address === 'string' && { address: raw.address }),
      ...(raw.pending === true && { pending: true }),
    };
  } catch {
    return null;
  }
}
