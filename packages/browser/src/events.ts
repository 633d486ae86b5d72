import type { ServiceErrorCode } from './error-codes.js';

/**
 * Why the session ended: a logout, the service's 401 code (`session_ended`: someone else ended it: a newer login,
 * the person from another session, an operator), or the end time passed (`session_expired`).
 */
export type SessionEndReason =
  'logout' | Extract<ServiceErrorCode, 'not_authenticated' | 'session_expired' | 'session_ended' | 'token_rejected'>;

export interface SessionEventMap {
  /** The session ended: log in again. */
  sessionend: SessionEvent;
  /** The session ends at `expiresAt`, within the client's `expiringLeadMs`. */
  sessionexpiring: SessionEvent;
}

/** `sessionend` (with `reason`) or `sessionexpiring` (with `expiresAt`). A plain Event: no DOM needed. */
export class SessionEvent extends Event {
  readonly reason: SessionEndReason | undefined;
  readonly expiresAt: string | undefined;
  constructor(type: keyof SessionEventMap, detail: { reason?: SessionEndReason; expiresAt?: string | undefined }) {
    super(type);
    this.reason = detail.reason;
    this.expiresAt = detail.expiresAt;
  }
}
