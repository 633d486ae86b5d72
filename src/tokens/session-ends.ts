import type { DueQueue } from '../store/due-queue.js';

/**
 * What the sweeper needs to delete a session's token once the session is over, when the session blob
 * (and with it the secret) may already be gone: the sid (to read `tok:{sid}`), the absolute end, and the
 * secret sealed exactly as the session holds it (the DELETE /requesttoken call needs the secret).
 */
export interface SessionEnd {
  sid: string;
  /** Epoch ms of the absolute timeout. */
  endsBy: number;
  sealedSecret: string;
  /** An OIDC session: the secret is an IdP refresh token, revoked at the IdP, never sent to TigerGraph. */
  kind?: 'oidc';
}

/** The session-end index: one entry per logged-in session, due when the session may next have ended. */
export interface SessionEnds {
  /** At login. First due when the idle timeout would end the session if it stayed idle. */
  watch(end: SessionEnd, dueAt: number): Promise<void>;
  /** At logout, once the token is gone. */
  forget(end: SessionEnd): Promise<void>;
}

export function encodeSessionEnd(end: SessionEnd): string {
  // Secret sessions keep the 3-element form, so entries written before OIDC existed still match.
  return JSON.stringify(
    end.kind ? [end.sid, end.endsBy, end.sealedSecret, end.kind] : [end.sid, end.endsBy, end.sealedSecret],
  );
}

export function decodeSessionEnd(member: string): SessionEnd | undefined {
  try {
    const value: unknown = JSON.parse(member);
    if (!Array.isArray(value) || (value.length !== 3 && value.length !== 4)) return undefined;
    const [sid, endsBy, sealedSecret, kind] = value as unknown[];
    if (typeof sid !== 'string' || typeof endsBy !== 'number' || typeof sealedSecret !== 'string') return undefined;
    if (value.length === 4 && kind !== 'oidc') return undefined;
    return { sid, endsBy, sealedSecret, ...(kind === 'oidc' && { kind }) };
  } catch {
    return undefined;
  }
}

export function sessionEndsOver(queue: DueQueue): SessionEnds {
  return {
    watch: (end, dueAt) => queue.add(encodeSessionEnd(end), Math.min(dueAt, end.endsBy)),
    forget: (end) => queue.remove(encodeSessionEnd(end)),
  };
}
