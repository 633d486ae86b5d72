import { AppError } from '../../errors.js';
import { SealError, sealedAs } from '../../crypto/crypto.js';
import { ShortCache } from '../../cache/short-cache.js';
import type { Cipher, TombstoneStore } from '../../store/types.js';
import type { TgSession } from '../../sessions/session-data.js';

/** The logged-in session of a request, decrypted once, for the handlers after `requireSession`. */
export interface SessionContext {
  sid: string;
  tg: TgSession;
  /** The session's credential unsealed: a TigerGraph secret, or (single sign-on) an IdP refresh token. */
  credential: string;
  /** Until the absolute timeout: token state never needs to outlive this. */
  remainingMs: number;
}

export interface RequireSessionDeps {
  cipher: Cipher;
  tombstones: TombstoneStore;
  absoluteTimeoutSec: number;
  now: () => number;
}

export const notAuthenticated = () => new AppError('not_authenticated', 'Not logged in');

/** What the browser of a session someone else ended is told, by the reason its tombstone keeps. */
const ENDED_BY: Record<string, string> = {
  evicted: 'A newer login of the same user ended this session (SESSIONS_PER_CREDENTIAL); log in again',
  ended: 'This session was ended from another of your sessions; log in again',
  operator: 'An operator ended this session; log in again',
};

/**
 * The 401 for a cookie whose session is not live: `session_ended` when someone else ended it (a newer login
 * over the cap, the person from another session, an operator), else `not_authenticated`. The tombstone's
 * value is read from the request's own session load where there was one (no second read).
 */
async function refusal(tombstones: TombstoneStore, sid: string): Promise<AppError> {
  if (sid === '') return notAuthenticated();
  const why = await tombstones.endedAs(sid).catch(() => null);
  const message = why !== null && Object.hasOwn(ENDED_BY, why) ? ENDED_BY[why] : undefined;
  return message === undefined ? notAuthenticated() : new AppError('session_ended', message);
}

/**
 * How long a decrypted secret is remembered, keyed by session id and sealed form. One sealed value
 * always opens to the same secret for its own session, and a tampered or copied one is another key, so
 * this only saves an AES-GCM decryption per request (it showed in the benchmark's profile).
 */
const SECRET_MEMO_MS = 10_000;

/** Checks a loaded session: resolves with its context, or rejects with the AppError to answer. */
export type SessionGate = (
  sid: string,
  tg: TgSession | undefined,
  destroy: () => Promise<void>,
) => Promise<SessionContext>;

/**
 * Lets a request through only with a live session: present, not tombstoned by a logout, within the
 * absolute timeout (the idle timeout is the store TTL), and with a secret that still decrypts (a tampered
 * or foreign-key value is a 401, never a 500). `destroy` removes a session found expired or unreadable.
 */
export function sessionGate(deps: RequireSessionDeps): SessionGate {
  const absoluteMs = deps.absoluteTimeoutSec * 1000;
  const opened = new ShortCache<string>(SECRET_MEMO_MS, 10_000);
  const open = (sid: string, sealed: string): string => {
    const memo = `${sid}\n${sealed}`;
    let secret = opened.get(memo);
    if (secret === undefined) {
      secret = deps.cipher.decrypt(sealed, sealedAs.sessionSecret(sid));
      opened.set(memo, secret);
    }
    return secret;
  };
  return async (sid, tg, destroy) => {
    if (!tg) throw await refusal(deps.tombstones, sid);
    const remainingMs = tg.createdAt + absoluteMs - deps.now();
    if (remainingMs <= 0) {
      await destroy();
      throw new AppError('session_expired', 'Session expired; log in again');
    }
    if (await deps.tombstones.isDead(sid)) throw await refusal(deps.tombstones, sid);
    let credential: string;
    try {
      credential = open(sid, tg.secret);
    } catch (err) {
      await destroy();
      // Sealed by 0.1.x, before values were bound to their session: a planned re-login, not an attack.
      if (err instanceof SealError && err.reason === 'unbound')
        throw new AppError('session_expired', 'Session expired; log in again');
      throw new AppError('not_authenticated', 'Session is not valid; log in again');
    }
    return { sid, tg, credential, remainingMs };
  };
}
