import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import supertest from 'supertest';
import { startRig, type Rig } from '../../helpers/app-rig.js';
import { auditValidator } from '../../helpers/audit-schema.js';
import { rawRequest, type RawAnswer } from '../../helpers/raw-request.js';
import { scrape } from '../observability/prom-text.js';

// docs/architecture.md, "The hostile-user model", for the session routes (issue 40): GET /auth/sessions,
// DELETE /auth/sessions[/{id}] and POST /auth/logout {"everywhere"}. A caller who holds a live session spells
// handles oddly, replays them, names another person's, leaves out the CSRF header, loops on the list and sends
// logout bodies that are not {"everywhere": boolean}: each answer is a 4xx JSON error naming the problem, and
// no session ends but the ones its own principal asked to end.

/** Small enough to spend in a test, large enough for the odd spellings below (each DELETE counts). */
const BUDGET = 40;

type Answer = { status: number; code?: string; body: unknown };

/** A refusal: the status, a JSON `{"error": {code, message}}` body, and the code. */
function expectRefused(res: Answer | RawAnswer, status: number, code: string): void {
  expect({ status: res.status, code: res.code }).toEqual({ status, code });
}

const answer = (res: supertest.Response): Answer => ({
  status: res.status,
  body: res.body as unknown,
  ...(typeof res.body?.error?.code === 'string' && { code: res.body.error.code as string }),
});

describe('hostile callers of the session routes', () => {
  let rig: Rig;
  let base: string;
  let n = 0;
  beforeAll(async () => {
    // Not a timeout test: the flood's counts in the shared Redis must not meet the 800 ms default (503).
    rig = await startRig({
      env: { SESSIONS_ROUTE_BUDGET: String(BUDGET), REDIS_COMMAND_TIMEOUT_MS: '4000' },
      label: 'session-routes',
    });
    base = await rig.listen();
  });
  afterAll(() => rig?.close());

  /** A principal of its own (a fresh secret): its own session-routes budget, nobody else's sessions. */
  const person = () => rig.sim.createSecret({ alias: `sr_${++n}` }).value;
  const cookieOf = (agent: supertest.Agent): string =>
    agent.jar.getCookies({ path: '/', domain: '127.0.0.1', secure: false, script: false }).toValueString();
  const alive = async (agent: supertest.Agent): Promise<boolean> => (await agent.get('/auth/session')).status === 200;
  const handles = async (agent: supertest.Agent): Promise<Array<{ id: string; current: boolean }>> => {
    const res = await agent.get('/auth/sessions');
    expect(res.status).toBe(200);
    return (res.body as { sessions: Array<{ id: string; current: boolean }> }).sessions;
  };
  /** A DELETE with the request target exactly as given (no client normalisation), as `agent`'s browser. */
  const rawDelete = (agent: supertest.Agent, target: string, headers: Record<string, string> = {}) =>
    rawRequest(base, target, {
      method: 'DELETE',
      headers: { cookie: cookieOf(agent), 'x-requested-with': 'XMLHttpRequest', ...headers },
    });

  test('when a handle is spelled oddly, is another person’s or is replayed after its end, then each is a 4xx JSON error and only the caller’s own named session ends', async () => {
    const secret = person();
    const [me, mine] = [await rig.login(secret), await rig.login(secret)];
    const stranger = await rig.login(person());
    const target = (await handles(me)).find((s) => !s.current)!.id;
    const theirs = (await handles(stranger))[0]!.id;
    const flipped = [...target].map((c) => (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase())).join('');
    const deletesBefore = rig.sim.seen().filter((r) => r.method === 'DELETE').length;

    const notFound = [
      'A'.repeat(4000), // very long
      `${target}${target}`, // two handles run together
      target.slice(0, 15), // one character short
      flipped === target ? `${target.slice(0, 15)}_` : flipped, // case is part of a handle
      encodeURIComponent(`${target.slice(0, 15)}\u00e9`), // unicode, percent-encoded UTF-8
      encodeURIComponent(`\u0410${target.slice(1)}`), // a Cyrillic look-alike first letter
      encodeURIComponent(`${target}\u200b`), // a zero-width space after it
      `${target}%00`, // a NUL after it
      `${target}%20`, // a space after it
      '..%2F..%2Fsessions', // an encoded path
      '%2E%2E', // an encoded ".."
      `%2E%2E%2F${target}`, // "../" + the handle, encoded
      encodeURIComponent(theirs), // another person's handle
    ];
    for (const id of notFound) expectRefused(await rawDelete(me, `/auth/sessions/${id}`), 404, 'session_not_found');

    // Spellings that are not this route at all: the router's 404, never "end all" nor the handle's session.
    for (const t of [
      `/auth/sessions/${target}/`,
      `/auth/sessions/${target}/x`,
      `/auth/sessions//${target}`,
      '/auth/sessions/',
      `/auth/sessions/./${target}`,
      `/auth/Sessions/${target}`,
      `/AUTH/SESSIONS/${target}`,
      `/AUTH/sessions/${target}`,
      `/auth/sessions;${target}`,
    ])
      expectRefused(await rawDelete(me, t), 404, 'not_found');
    // A percent sign that starts no escape: the path cannot be decoded, so it names nothing.
    const undecodable = await rawDelete(me, `/auth/sessions/${target}%ZZ`);
    expect(undecodable.status).toBeGreaterThanOrEqual(400);
    expect(undecodable.status).toBeLessThan(500);
    expect(undecodable.code).toEqual(expect.any(String));

    // Nothing ended: the other session of mine, mine, and the stranger's all live; TigerGraph was asked nothing.
    expect([await alive(me), await alive(mine), await alive(stranger)]).toEqual([true, true, true]);
    expect(rig.sim.seen().filter((r) => r.method === 'DELETE').length).toBe(deletesBefore);

    // The same handle with its letters percent-encoded is the same handle (RFC 3986 §6.2.2.2): it ends it, once.
    const encoded = [...target].map((c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`).join('');
    expect((await rawDelete(me, `/auth/sessions/${encoded}`)).status).toBe(204);
    expectRefused(answer(await mine.get('/auth/session')), 401, 'session_ended');
    // Replayed, in either spelling: 404 as a made-up handle, and the stranger's session still lives.
    expectRefused(await rawDelete(me, `/auth/sessions/${target}`), 404, 'session_not_found');
    expectRefused(await rawDelete(me, `/auth/sessions/${encoded}`), 404, 'session_not_found');
    expect([await alive(me), await alive(stranger)]).toEqual([true, true]);
  });

  test('when a DELETE comes without the CSRF header, then it is 403 csrf_rejected and nothing ends', async () => {
    const secret = person();
    const [me, mine] = [await rig.login(secret), await rig.login(secret)];
    const target = (await handles(me)).find((s) => !s.current)!.id;
    const plain = (path: string) => supertest(rig.service.app).delete(path).set('Cookie', cookieOf(me));
    for (const res of [
      await plain(`/auth/sessions/${target}`),
      await plain('/auth/sessions'),
      await plain('/auth/sessions').set('X-Requested-With', ''),
      await plain('/auth/sessions').set('Content-Type', 'text/plain').send('x'),
      // The header, but from another site's page.
      await plain(`/auth/sessions/${target}`)
        .set('X-Requested-With', 'XMLHttpRequest')
        .set('Origin', 'https://evil.example'),
    ])
      expectRefused(answer(res), 403, 'csrf_rejected');
    const noHeader = await rawRequest(base, `/auth/sessions/${target}`, {
      method: 'DELETE',
      headers: { cookie: cookieOf(me) },
    });
    expectRefused(noHeader, 403, 'csrf_rejected');
    expect([await alive(me), await alive(mine)]).toEqual([true, true]);
    expect((await handles(me)).length).toBe(2);
  });

  test('when one person floods GET /auth/sessions, then past SESSIONS_ROUTE_BUDGET every call is 429 rate_limited with Retry-After, from all their sessions and the DELETEs too, while another person and logout are untouched', async () => {
    const secret = person();
    const [a, b] = [await rig.login(secret), await rig.login(secret)];
    const other = await rig.login(person());
    const before = (await scrape(rig.service.metricsApp)).value('tgbff_session_routes_limited_total', {
      route: 'list',
    });
    // In parallel from two sessions of the one principal: the count is Redis's, so none slips through.
    const flood = await Promise.all(
      Array.from({ length: BUDGET + 10 }, (_, i) => (i % 2 === 0 ? a : b).get('/auth/sessions').then(answer)),
    );
    expect(flood.filter((r) => r.status === 200)).toHaveLength(BUDGET);
    const limited = await a.get('/auth/sessions');
    expectRefused(answer(limited), 429, 'rate_limited');
    expect(limited.headers['content-type']).toMatch(/^application\/json/);
    const retryAfter = Number(limited.headers['retry-after']);
    expect(Number.isInteger(retryAfter)).toBe(true);
    // At most the window (LOGIN_RATE_WINDOW, 60 s by default), at least a second.
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(rig.config.loginRateLimit.windowSeconds);
    for (const r of flood.filter((x) => x.status !== 200)) expectRefused(r, 429, 'rate_limited');

    // The DELETEs share the budget: refused before anything is looked at or ended.
    expectRefused(await rawDelete(a, '/auth/sessions/AAAAAAAAAAAAAAAA'), 429, 'rate_limited');
    expectRefused(answer(await b.delete('/auth/sessions')), 429, 'rate_limited');
    expect([await alive(a), await alive(b)]).toEqual([true, true]);

    // Another person's budget is their own.
    expect((await other.get('/auth/sessions')).status).toBe(200);
    const after = await scrape(rig.service.metricsApp);
    expect(after.value('tgbff_session_routes_limited_total', { route: 'list' }) - before).toBe(11);
    expect(after.value('tgbff_session_routes_limited_total', { route: 'end' })).toBeGreaterThanOrEqual(2);
    // Audited as the other limits are, in the documented shape (docs/audit.schema.json).
    expect(auditValidator().problems(rig.audit())).toEqual([]);
    expect(rig.audit()).toMatch(
      /"event":"limiter\.tripped","limit":"session_routes","scope":"principal","route":"list"/,
    );
    // Logout is never counted: everywhere still ends both sessions of the spent principal.
    expect((await a.post('/auth/logout').send({ everywhere: true })).status).toBe(204);
    expectRefused(answer(await b.get('/auth/session')), 401, 'session_ended');
  });

  test('when a logout body is not {"everywhere": boolean}, then it is a 4xx JSON error that ends only the session that asked', async () => {
    const secret = person();
    const [me, mine] = [await rig.login(secret), await rig.login(secret)];
    const cookie = cookieOf(me);
    const logout = (body: string, type = 'application/json') =>
      rawRequest(base, '/auth/logout', {
        method: 'POST',
        headers: { cookie, 'x-requested-with': 'XMLHttpRequest', 'content-type': type },
        body,
      });
    const cases: Array<[string, number, string]> = [
      ['{"everywhere":"yes"}', 400, 'invalid_request'],
      ['{"everywhere":1}', 400, 'invalid_request'],
      ['{"everywhere":null}', 400, 'invalid_request'],
      ['{"everywhere":[true]}', 400, 'invalid_request'],
      ['[{"everywhere":true}]', 400, 'invalid_request'],
      ['[]', 400, 'invalid_request'],
      ['"everywhere"', 400, 'invalid_request'],
      ['true', 400, 'invalid_request'],
      ['{"everywhere":true,"also":1}', 400, 'invalid_request'],
      ['{"everywhere":true,"__proto__":{"x":1}}', 400, 'invalid_request'],
      ['{"everywhere":tru', 400, 'invalid_request'],
      [`{"everywhere":${'['.repeat(400)}${']'.repeat(400)}}`, 400, 'invalid_request'],
      [`{"everywhere":true,"pad":"${'x'.repeat(2048)}"}`, 413, 'payload_too_large'],
      [`[${'true,'.repeat(200_000)}true]`, 413, 'payload_too_large'],
    ];
    for (const [body, status, code] of cases) {
      const res = await logout(body);
      expect({ body: body.slice(0, 40), status: res.status, code: res.code }).toEqual({
        body: body.slice(0, 40),
        status,
        code,
      });
      expect(res.headers['content-type']).toMatch(/^application\/json/);
    }
    // A refused logout still ends the caller's own session (its cookie is cleared on every logout answer), but
    // never "everywhere": the principal's other session lives on.
    const stillMe = (await supertest(rig.service.app).get('/auth/session').set('Cookie', cookie)).status;
    expect([stillMe, (await mine.get('/auth/session')).status]).toEqual([401, 200]);
    expect(await handles(mine)).toHaveLength(1);
  });
});
