import { setMaxListeners } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';

const XHR = { 'x-requested-with': 'XMLHttpRequest' };

/**
 * Session churn under the load: `perSec` times a second a new login takes one slot of `cookies`
 * (round robin), and the session it replaced logs out later, once every request already handed to
 * the load's pool with it has been answered or timed out (10 s), so a logout never fails a request of
 * the steady load, however long the pool's queue grew.
 */
export function startChurn(opts: {
  baseUrl: string;
  cookies: string[];
  secrets: string[];
  perSec: number;
  logoutAfterMs?: number;
}) {
  const counts = { logins: 0, logouts: 0, failed: 0 };
  const pending = new Set<Promise<void>>();
  let running = true;
  // Once the load has stopped no request can carry an old cookie: the waiting logouts may go at once.
  const loadStopped = new AbortController();
  // One listener per waiting logout (perSec × 12 s of them), all expected.
  setMaxListeners(0, loadStopped.signal);
  const track = (p: Promise<void>) => {
    pending.add(p);
    void p.finally(() => pending.delete(p));
  };

  const replace = async (slot: number): Promise<void> => {
    const res = await fetch(`${opts.baseUrl}/auth/login`, {
      method: 'POST',
      headers: { ...XHR, 'content-type': 'application/json' },
      body: JSON.stringify({ secret: opts.secrets[slot % opts.secrets.length], graph: 'social' }),
    });
    await res.arrayBuffer();
    const cookie = res.headers.getSetCookie()[0]?.split(';')[0];
    if (res.status !== 200 || !cookie) {
      counts.failed++;
      return;
    }
    counts.logins++;
    const old = opts.cookies[slot] as string;
    opts.cookies[slot] = cookie;
    await sleep(opts.logoutAfterMs ?? 12_000, undefined, { signal: loadStopped.signal }).catch(() => undefined);
    const out = await fetch(`${opts.baseUrl}/auth/logout`, { method: 'POST', headers: { ...XHR, cookie: old } });
    await out.arrayBuffer();
    if (out.status === 204) counts.logouts++;
    else counts.failed++;
  };

  const loop = (async () => {
    for (let slot = 0; running; slot = (slot + 1) % opts.cookies.length) {
      track(replace(slot).catch(() => void counts.failed++));
      await sleep(1000 / opts.perSec);
    }
  })();

  return {
    counts,
    /** No new logins from now on. */
    async stop(): Promise<void> {
      running = false;
      await loop;
    },
    /** After the load has stopped: the replaced sessions log out now. */
    async finish(): Promise<void> {
      loadStopped.abort();
      await Promise.all(pending);
    },
  };
}
