import { BffError, createClient, SessionEvent, TigerGraphError, type TgbffClient } from '@tigergraph-bff/browser';
import { CSRF, startRig, type Rig } from '../../helpers/app-rig.js';
import { cookieJarFetch, type JarFetch } from '../../helpers/cookie-jar-fetch.js';
import { until } from '../../helpers/wait.js';

// Issue 26 item 1: the browser SDK against the real service (in process, on a real socket) and the
// simulator, through Node 20's fetch. Node's fetch keeps no cookies, so each client gets a cookie-jar shim
// (test/helpers/cookie-jar-fetch.ts) standing in for the browser's jar; the demo page's browser tests drive
// the same SDK with the real thing.
let rig: Rig;
let url: string;
const clients: TgbffClient[] = [];

beforeAll(async () => {
  rig = await startRig({ env: { LOGIN_RATE_LIMIT: '1000', RELAY_SESSION_CONCURRENCY: '1' }, label: 'browser-sdk' });
  url = await rig.listen();
});
afterAll(async () => {
  for (const c of clients) c.close();
  await rig?.close();
});

function client(options: Parameters<typeof createClient>[0] = {}): { sdk: TgbffClient; jar: JarFetch } {
  const jar = cookieJarFetch();
  const sdk = createClient({ baseUrl: url, fetch: jar.fetch, ...options });
  clients.push(sdk);
  return { sdk, jar };
}

const events = (sdk: TgbffClient, type: 'sessionend' | 'sessionexpiring') => {
  const seen: SessionEvent[] = [];
  sdk.addEventListener(type, (e) => seen.push(e as SessionEvent));
  return seen;
};

async function caught(work: Promise<unknown>): Promise<unknown> {
  return work.then(
    (value) => ({ resolved: value }),
    (err: unknown) => err,
  );
}

/**
 * Takes the session's one relay slot (RELAY_SESSION_CONCURRENCY=1) with a query that runs until released
 * (or the simulator's 16 s query limit): held once the data server saw the query, which the service sends
 * only once it holds the slot. Returns the release: the query aborted, and its outcome.
 */
async function holdSlot(sdk: TgbffClient): Promise<() => Promise<unknown>> {
  const mark = rig.sim.seen().length;
  const hold = new AbortController();
  const held = caught(sdk.runQuery('social', 'sleep', { ms: 60_000 }, { signal: hold.signal }));
  await until('the holding query to reach the data server', () =>
    rig.sim
      .seen()
      .slice(mark)
      .some((r) => r.path === '/query/social/sleep'),
  );
  return () => {
    hold.abort(new Error('released'));
    return held;
  };
}

/** Waits until the service relays for the session again: its slot is free (an aborted query's, once noticed). */
async function untilSlotFree(jar: JarFetch): Promise<void> {
  await until("the session's relay slot to be free", async () => {
    const res = await jar.fetch(`${url}/api/echo`, { headers: CSRF });
    await res.arrayBuffer();
    return res.status === 200;
  });
}

/** Waits until `jar` made a call to a URL containing `path` since call `from` that was answered `status`. */
async function untilAnswered(jar: JarFetch, from: number, path: string, status: number): Promise<void> {
  await until(`a ${status} for ${path}`, () =>
    jar.calls.slice(from).some((c) => c.url.includes(path) && c.status === status),
  );
}

describe('browser SDK against the service', () => {
  it('when logged in, then session() names the graph and the login kind, and every call sent the CSRF header', async () => {
    const seenHeaders: string[] = [];
    const jar = cookieJarFetch();
    const spy: typeof fetch = (input, init) => {
      seenHeaders.push(new Headers(init?.headers).get('X-Requested-With') ?? 'missing');
      return jar.fetch(input, init);
    };
    const watched = createClient({ baseUrl: url, fetch: spy });
    clients.push(watched);
    expect(await watched.session()).toBeNull();
    const result = await watched.login({ secret: rig.secret, graph: 'social' });
    expect(result).toMatchObject({ authenticated: true, graph: 'social' });
    const session = await watched.session();
    expect(session).toMatchObject({ authenticated: true, graph: 'social', login: 'secret' });
    expect(watched.currentSession?.graph).toBe('social');
    expect(seenHeaders.length).toBeGreaterThanOrEqual(3);
    expect(new Set(seenHeaders)).toEqual(new Set(['XMLHttpRequest']));
    // The session cookie (plain `tgbff` here: the rig runs with COOKIE_SECURE=false) is all that came back.
    expect([...jar.cookies.keys()]).toEqual(['tgbff']);
    expect(await watched.logout()).toBe('ended');
  });

  it('when the secret is wrong, then login throws BffError invalid_credentials (401) and no session starts', async () => {
    const { sdk } = client();
    const err = await caught(sdk.login({ secret: 'not-a-secret', graph: 'social' }));
    expect(err).toBeInstanceOf(BffError);
    expect([(err as BffError).code, (err as BffError).status]).toEqual(['invalid_credentials', 401]);
    expect(await sdk.session()).toBeNull();
  });

  it('when runQuery runs an installed query by GET and by POST, then it returns its results', async () => {
    const { sdk } = client();
    await sdk.login({ secret: rig.secret, graph: 'social' });
    expect(await sdk.runQuery('social', 'hello', { name: 'Ana & Bo' })).toEqual([{ greeting: 'Hello, Ana & Bo!' }]);
    expect(await sdk.runQuery('social', 'hello', { name: 'Posted' }, { method: 'POST' })).toEqual([
      { greeting: 'Hello, Posted!' },
    ]);
  });

  it("when the query itself fails, then runQuery throws TigerGraphError with RESTPP's code, not a BffError", async () => {
    const { sdk } = client();
    await sdk.login({ secret: rig.secret, graph: 'social' });
    const err = await caught(sdk.runQuery('social', 'friends', { person: 'nobody' }));
    expect(err).toBeInstanceOf(TigerGraphError);
    expect([(err as TigerGraphError).status, (err as TigerGraphError).code]).toEqual([400, 'REST-30000']);
  });

  it('when the relay refuses a path, then relay() throws BffError path_not_allowed; a TigerGraph 4xx is a Response', async () => {
    const { sdk } = client();
    await sdk.login({ secret: rig.secret, graph: 'social' });
    const err = await caught(sdk.relay('DELETE', '/requesttoken'));
    expect(err).toBeInstanceOf(BffError);
    expect((err as BffError).code).toBe('path_not_allowed');
    const res = await sdk.relay('GET', '/graph/social/vertices/NoSuchType');
    expect(res.ok).toBe(false);
    expect(((await res.json()) as { error: unknown }).error).toBe(true);
  });

  it('when logged out, then sessionend fires with reason logout and the next relay throws not_authenticated', async () => {
    const { sdk } = client();
    const ended = events(sdk, 'sessionend');
    await sdk.login({ secret: rig.secret, graph: 'social' });
    expect(await sdk.logout()).toBe('ended');
    expect(ended.map((e) => e.reason)).toEqual(['logout']);
    const err = await caught(sdk.relay('GET', '/echo'));
    expect([(err as BffError).code, (err as BffError).sessionEnded]).toEqual(['not_authenticated', true]);
  });

  it('when the session was ended elsewhere, then the next call fires sessionend with the 401 code', async () => {
    const { sdk, jar } = client();
    const ended = events(sdk, 'sessionend');
    await sdk.login({ secret: rig.secret, graph: 'social' });
    // The same cookie, logged out by another tab: this client's session is gone without its knowing.
    const other = createClient({ baseUrl: url, fetch: jar.fetch });
    const cookie = new Map(jar.cookies);
    await other.logout();
    for (const [k, v] of cookie) jar.cookies.set(k, v);
    await caught(sdk.relay('GET', '/echo'));
    expect(ended.map((e) => e.reason)).toEqual(['not_authenticated']);
    expect(sdk.currentSession).toBeNull();
  });

  it('when a GET meets 429 too_many_requests, then it waits Retry-After and succeeds; a POST is not retried', async () => {
    const { sdk, jar } = client();
    await sdk.login({ secret: rig.secret, graph: 'social' });
    // RELAY_SESSION_CONCURRENCY=1: a running query holds the session's one slot until released.
    const release = await holdSlot(sdk);
    const post = await caught(sdk.runQuery('social', 'hello', { name: 'x' }, { method: 'POST' }));
    expect([(post as BffError).code, (post as BffError).retryAfterMs]).toEqual(['too_many_requests', 1000]);
    const before = jar.calls.length;
    const again = sdk.runQuery('social', 'hello', { name: 'again' });
    // Its first attempt refused, the slot is let go while the GET waits out Retry-After.
    await untilAnswered(jar, before, '/query/social/hello', 429);
    await release();
    expect(await again).toEqual([{ greeting: 'Hello, again!' }]);
    const attempts = jar.calls.slice(before).filter((c) => c.url.includes('/query/social/hello'));
    expect(attempts[0]?.status).toBe(429);
    expect(attempts.at(-1)?.status).toBe(200);
    expect(attempts.length).toBeLessThanOrEqual(3);
  });

  it('when retries are spent, then the 429 is thrown with its code; retries: 0 throws at once', async () => {
    const { sdk, jar } = client({ retry: { retries: 0 } });
    await sdk.login({ secret: rig.secret, graph: 'social' });
    const release = await holdSlot(sdk);
    const before = jar.calls.length;
    const err = await caught(sdk.relay('GET', '/echo'));
    expect((err as BffError).code).toBe('too_many_requests');
    expect(jar.calls.length - before).toBe(1);
    await release();
  });

  it('when the AbortSignal fires during a query or a retry wait, then the call rejects with its reason', async () => {
    const { sdk, jar } = client();
    await sdk.login({ secret: rig.secret, graph: 'social' });
    const during = new AbortController();
    const mark = rig.sim.seen().length;
    const running = caught(sdk.runQuery('social', 'sleep', { ms: 30_000 }, { signal: during.signal }));
    await until('the query to reach the data server', () =>
      rig.sim
        .seen()
        .slice(mark)
        .some((r) => r.path === '/query/social/sleep'),
    );
    during.abort(new Error('left the page'));
    expect(((await running) as Error).message).toBe('left the page');
    // The slot is free again once the service notices; then hold it and abort a GET waiting to retry.
    await untilSlotFree(jar);
    const release = await holdSlot(sdk);
    const waiting = new AbortController();
    const before = jar.calls.length;
    const retrying = caught(sdk.relay('GET', '/echo', { signal: waiting.signal }));
    // Its first attempt refused: it now waits out Retry-After (1 s) before the next.
    await untilAnswered(jar, before, '/api/echo', 429);
    waiting.abort(new Error('stop waiting'));
    expect(((await retrying) as Error).message).toBe('stop waiting');
    await release();
  });

  it('when nothing listens, then the call throws BffError network_error with status 0', async () => {
    const sdk = createClient({ baseUrl: 'http://127.0.0.1:9', retry: { retries: 0 } });
    const err = await caught(sdk.methods());
    expect([(err as BffError).code, (err as BffError).status]).toEqual(['network_error', 0]);
  });

  it("when methods() is asked, then it answers the service's login kinds without a session", async () => {
    const { sdk } = client();
    expect(await sdk.methods()).toMatchObject({ secret: true, oidc: false });
  });
});

describe('browser SDK session expiry events', () => {
  let short: Rig;
  let shortUrl: string;
  beforeAll(async () => {
    short = await startRig({
      env: { LOGIN_RATE_LIMIT: '1000', SESSION_ABSOLUTE_TIMEOUT: '2', SESSION_IDLE_TIMEOUT: '2' },
      label: 'browser-sdk-expiry',
    });
    shortUrl = await short.listen();
  });
  afterAll(async () => short?.close());

  it('when the session nears and reaches its absolute end, then sessionexpiring and then sessionend fire', async () => {
    const jar = cookieJarFetch();
    const sdk = createClient({ baseUrl: shortUrl, fetch: jar.fetch, expiringLeadMs: 1000 });
    clients.push(sdk);
    const expiring = events(sdk, 'sessionexpiring');
    const ended = new Promise<SessionEvent>((resolve) =>
      sdk.addEventListener('sessionend', (e) => resolve(e as SessionEvent), { once: true }),
    );
    await sdk.login({ secret: short.secret, graph: 'social' });
    const session = sdk.currentSession!;
    const end = await ended;
    expect(expiring.map((e) => e.expiresAt)).toEqual([session.sessionExpiresAt]);
    expect(['session_expired', 'not_authenticated']).toContain(end.reason);
    expect(Date.now()).toBeGreaterThanOrEqual(Date.parse(session.sessionExpiresAt!));
  });
});

describe('a person’s sessions through the SDK (issue 40)', () => {
  test('when one secret has three clients, then sessions() lists them, endSession ends one (sessionend session_ended there), another id is session_not_found, endOtherSessions and logout({everywhere}) end the rest', async () => {
    const { value } = rig.sim.createSecret({ alias: 'sdk_sessions' });
    const [a, b, c] = [client(), client(), client()];
    for (const { sdk } of [a, b, c]) await sdk.login({ secret: value, graph: 'social' });
    const listed = await a.sdk.sessions();
    expect(listed).toHaveLength(3);
    expect(listed.filter((s) => s.current)).toHaveLength(1);
    const ofB = listed[1]!;
    const ended = events(b.sdk, 'sessionend');
    await a.sdk.endSession(ofB.id);
    expect(await b.sdk.session()).toBeNull();
    expect(ended.map((e) => e.reason)).toEqual(['session_ended']);
    const unknown = await caught(a.sdk.endSession(ofB.id));
    expect(unknown).toBeInstanceOf(BffError);
    expect((unknown as BffError).code).toBe('session_not_found');

    const d = client();
    await d.sdk.login({ secret: value, graph: 'social' });
    expect(await a.sdk.endOtherSessions()).toBe(2);
    expect(await c.sdk.session()).toBeNull();
    const e = client();
    await e.sdk.login({ secret: value, graph: 'social' });
    expect(await a.sdk.logout({ everywhere: true })).toBe('ended');
    expect(await e.sdk.session()).toBeNull();
    expect(await a.sdk.session()).toBeNull();
  });
});
