import type { IncomingMessage, ServerResponse } from 'node:http';
import { traced, type Tracing } from '../../observability/tracing.js';
import { storeCallOf } from './leave-signal.js';
import { sessionCookie, storedSession, type CookieSettings } from './session.js';
import type { SessionGate, SessionContext } from './session-gate.js';
import type { SessionLookup } from './session-lookup.js';
import type { StoredSession, TgSession } from '../../sessions/session-data.js';
import type { SessionWriter } from '../../sessions/lifecycle.js';

const notRead = Symbol('not read');

/**
 * The session of one request, read at most once whoever asks (the /api lane, the /auth routes), checked
 * by the one gate, and touched once after the answer if it was read and is still the request's session.
 *
 * Only a relayed request (`fromCache`) may be answered from this instance's session cache. Its end on another
 * instance reaches this cache as an invalidation on a connection of its own, which a slow path to Redis (a TCP
 * proxy, a mesh sidecar) can deliver after the browser's next request; the relay then still has to get past
 * the session's token state and TigerGraph, both ended with the session. Every other route answers from the
 * session alone (`GET /auth/session` says "authenticated"), so it reads Redis: one MGET, as without the cache.
 */
export class RequestSession implements SessionWriter {
  private cookieSid: string | null | typeof notRead = notRead;
  private loaded: Promise<StoredSession | null> | undefined;
  /** Set once login or logout replaced or ended the cookie's session: nothing may touch it then. */
  private ended = false;
  /** The session this request acted as (passed the gate, was logged in, or logged out), for the access line. */
  private actedAs: { sid: string; tg: TgSession } | undefined;

  constructor(
    private readonly req: IncomingMessage,
    private readonly res: ServerResponse,
    private readonly sessions: SessionLookup,
    private readonly gate: SessionGate,
    private readonly cookie: CookieSettings,
    private readonly tracing?: Tracing,
    /** The /api lane's request: the session cache may answer its load. */
    private readonly fromCache = false,
  ) {}

  /** The id of the request's verified session cookie, or null. */
  sid(): string | null {
    if (this.cookieSid === notRead) this.cookieSid = this.sessions.sid(this.req.headers.cookie);
    return this.cookieSid;
  }

  /** The stored session of the cookie, or null; a store failure rejects (503 store_unavailable). */
  load(): Promise<StoredSession | null> {
    this.loaded ??= this.read();
    return this.loaded;
  }

  /** The logged-in session, past the gate (tombstone, absolute timeout, secret), or the 401 to answer. */
  live(): Promise<SessionContext> {
    return this.load()
      .then((data) => this.gate(this.sid() ?? '', data?.tg, () => this.drop()))
      .then((live) => {
        this.actedAs = live;
        return live;
      });
  }

  /** The session the request acted as, once it passed the gate, logged in or logged out; else undefined. */
  principal(): { sid: string; tg: TgSession } | undefined {
    return this.actedAs;
  }

  /** The cookie's stored session, for a login that replaces it. */
  async current(): Promise<{ sid: string; tg: TgSession } | null> {
    const data = await this.load();
    const sid = this.sid();
    return data?.tg && sid !== null ? { sid, tg: data.tg } : null;
  }

  /**
   * The session is being ended (by the lifecycle, which deletes its record): nothing may touch it now. With
   * `tg` (a logout), the access line still names who it was.
   */
  ending(tg?: TgSession): void {
    this.ended = true;
    const sid = this.sid();
    if (tg !== undefined && sid !== null) this.actedAs ??= { sid, tg };
  }

  /**
   * Login's half: the cookie's session (if any) is removed from the store and a fresh id returned, so an id
   * planted before login is never the logged-in one.
   */
  async regenerate(): Promise<string> {
    const old = this.sid();
    this.ended = true;
    if (old !== null) await this.sessions.destroy(old);
    return this.sessions.newSid();
  }

  /** Stores `tg` under `sid` (from regenerate) and sets the cookie that carries it. */
  async save(sid: string, tg: TgSession): Promise<void> {
    await this.sessions.save(sid, storedSession(tg, this.cookie.cookieSecure));
    this.res.appendHeader('Set-Cookie', sessionCookie(this.cookie, this.sessions.sign(sid)));
    this.actedAs = { sid, tg };
  }

  /** The stored session is deleted (a store failure rejects). */
  destroy(): Promise<void> {
    return this.remove();
  }

  private async remove(): Promise<void> {
    const sid = this.sid();
    this.ended = true;
    if (sid !== null) await this.sessions.destroy(sid);
  }

  private async read(): Promise<StoredSession | null> {
    const sid = this.sid();
    if (sid === null) return null;
    // Waiting for a lost Redis connection, the read lets go of its slot if the client leaves (leave-signal.ts).
    const data = await traced(this.tracing, 'session.load', () =>
      this.sessions.load(sid, this.fromCache, storeCallOf(this.res)),
    );
    if (data !== null) this.res.once('finish', () => this.ended || this.sessions.touch(sid, data));
    return data;
  }

  /** The gate's clean-up of a session found expired or unreadable: best effort, the 401 stands. */
  private drop(): Promise<void> {
    return this.remove().catch(() => undefined);
  }
}
