import { BffError, createClient, SessionEvent, TigerGraphError, type TgbffClient } from '@tigergraph-bff/browser';
import { startRig, type Rig } from '../../helpers/app-rig.js';
import { cookieJarFetch, type JarFetch } from '../../helpers/cookie-jar-fetch.js';

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
    // RELAY_SESSION_CONCURRENCY=1: a running query holds the session's one slot for 1.5 s.
    const holding = sdk.runQuery('social', 'sleep', { ms: 1500 });
    await new Promise((r) => setTimeout(r, 200));
    const post = await caught(sdk.runQuery('social', 'hello', { name: 'x' }, { method: 'POST' }));
    expect([(post as BffError).code, (post as BffError).retryAfterMs]).toEqual(['too_many_requests', 1000]);
    const before = jar.calls.length;
    expect(await sdk.runQuery('social', 'hello', { name: 'again' })).toEqual([{ greeting: 'Hello, again!' }]);
    const attempts = jar.calls.slice(before).filter((c) => c.url.includes('/query/social/hello'));
    expect(attempts.map((c) => c.status)).toContain(429);
    expect(attempts.at(-1)?.status).toBe(200);
    expect(attempts.length).toBeLessThanOrEqual(3);
    await holding;
  });

  it('when retries are spent, then the 429 is thrown with its code; retries: 0 throws at once', async () => {
    const { sdk, jar } = client({ retry: { retries: 0 } });
    await sdk.login({ secret: rig.secret, graph: 'social' });
    const holding = sdk.runQuery('social', 'sleep', { ms: 1000 });
    await new Promise((r) => setTimeout(r, 200));
    const before = jar.calls.length;
    const err = await caught(sdk.relay('GET', '/echo'));
    expect((err as BffError).code).toBe('too_many_requests');
    expect(jar.calls.length - before).toBe(1);
    await holding;
  });

  it('when the AbortSignal fires during a query or a retry wait, then the call rejects with its reason', async () => {
    const { sdk } = client();
    await sdk.login({ secret: rig.secret, graph: 'social' });
    const during = new AbortController();
    const running = caught(sdk.runQuery('social', 'sleep', { ms: 5000 }, { signal: during.signal }));
    setTimeout(() => during.abort(new Error('left the page')), 100);
    expect(((await running) as Error).message).toBe('left the page');
    // The slot is free again once the service notices; then hold it and abort a GET waiting to retry.
    await new Promise((r) => setTimeout(r, 300));
    const holding = sdk.runQuery('social', 'sleep', { ms: 1500 });
    await new Promise((r) => setTimeout(r, 200));
    const waiting = new AbortController();
    const retrying = caught(sdk.relay('GET', '/echo', { signal: waiting.signal }));
    setTimeout(() => waiting.abort(new Error('stop waiting')), 300);
    expect(((await retrying) as Error).message).toBe('stop waiting');
    await holding;
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
  }, 15_000);
});
