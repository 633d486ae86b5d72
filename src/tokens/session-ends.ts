import type { DueQueue } from '../store/due-queue.js';
import type { SecretDrop } from '../store/secret-drops.js';

/**
 * What the sweeper needs to delete a session's token once the session is over, when the session blob
 * (and with it the credential) may already be gone: the sid (to read `tok:{sid}`), the absolute end, and the
 * credential sealed exactly as the session holds it (deleting the token upstream needs it).
 */
export interface SessionEnd {
  sid: string;
  /** Epoch ms of the absolute timeout. */
  endsBy: number;
  /** The session's credential sealed as its record holds it: a TigerGraph secret, or an IdP refresh token. */
  sealedCredential: string;
  /** An OIDC session: the credential is an IdP refresh token, revoked at the IdP, never sent to TigerGraph. */
  kind?: 'oidc' | 'password';
  /** A password login's secret, dropped when the session ends however it ends (kind 'password'). */
  drop?: SecretDrop;
}

/** The session-end index: one entry per logged-in session, due when the session may next have ended. */
export interface SessionEnds {
  /** At login. First due when the idle timeout would end the session if it stayed idle. */
  watch(end: SessionEnd, dueAt: number): Promise<void>;
  /** At logout, once the token is gone. */
  forget(end: SessionEnd): Promise<void>;
}

export function encodeSessionEnd(end: SessionEnd): string {
  const head = [end.sid, end.endsBy, end.sealedCredential];
  // Secret sessions keep the 3-element form, so entries written before OIDC existed still match.
  if (end.kind === 'oidc') return JSON.stringify([...head, 'oidc']);
  if (end.kind === 'password' && end.drop)
    return JSON.stringify([...head, 'password', end.drop.alias, end.drop.graph, end.drop.sealedSecret]);
  return JSON.stringify(head);
}

export function decodeSessionEnd(member: string): SessionEnd | undefined {
  try {
    const value: unknown = JSON.parse(member);
    if (!Array.isArray(value) || ![3, 4, 7].includes(value.length)) return undefined;
    const [sid, endsBy, sealedCredential, kind, alias, graph, dropSealed] = value as unknown[];
    if (typeof sid !== 'string' || typeof endsBy !== 'number' || typeof sealedCredential !== 'string') return undefined;
    if (value.length === 3) return { sid, endsBy, sealedCredential };
    if (value.length === 4) return kind === 'oidc' ? { sid, endsBy, sealedCredential, kind } : undefined;
    if (kind !== 'password' || typeof alias !== 'string' || typeof dropSealed !== 'string') return undefined;
    if (graph !== null && typeof graph !== 'string') return undefined;
    return { sid, endsBy, sealedCredential, kind, drop: { alias, graph, sealedSecret: dropSealed } };
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
