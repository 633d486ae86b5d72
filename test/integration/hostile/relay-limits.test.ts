/**
 * A victim must be answered within the deadline while an attacker holds every connection
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { request } from 'undici';
import {
  assertNoEscape,
  chunk,
  chunkedHead,
  rawExchange,
  relayGet,
  startHostileRig,
  timed,
  type HostileRig,
} from './hostile-rig.js';
import { until } from '../../helpers/wait.js';

/**
 * docs/architecture.md, "The hostile-user model", against a real service process: one logged-in user tries to starve the others, to send more
 * than MAX_BODY_BYTES, and to smuggle override headers upstream. The stand-in counts what reached it.
 */
/** UPSTREAM_TIMEOUT_MS: the queued and the hanging requests below meet it. */
const DEADLINE_MS = 4000;
/**
 * UPSTREAM_TIMEOUT_MS while an attacker trickles uploads: the set-up (130 uploads answered, two of them
 * admitted and still in flight, then pushed past the cap) must be complete before the admitted ones run out
 * of it. At 2 s, and at 4 s, a busy machine answered the 130 so slowly that the first two met it (504).
 */
const ATTACK_DEADLINE_MS = 15_000;
const CAP = 64 * 1024;

describe('hostile user: an attacker holding every connection it can get', () => {
  let rig: HostileRig;

  beforeAll(async () => {
    rig = await startHostileRig('hostile-attack', {
      UPSTREAM_TIMEOUT_MS: String(ATTACK_DEADLINE_MS),
      UPSTREAM_CONNECTIONS: '4',
      RELAY_SESSION_CONCURRENCY: '2',
      MAX_BODY_BYTES: String(CAP),
    });
  });
  afterAll(async () => {
    await rig?.close();
  });

  it('when an attacker session trickles uploads on every connection it can get, then a victim session is answered within the deadline', async () => {
    const attacker = await rig.login();
    const victim = await rig.login();
    const before = rig.standIn.seen.length;
    const sentAt = Date.now();
    // 130 slow chunked uploads: more than the old hard-coded pool of 128, each past the cap and still trickling.
    const uploads = await Promise.all(
      Array.from({ length: 130 }, () => rawExchange(rig.bff.port, chunkedHead('/api/query/social/load', attacker))),
    );
    for (const u of uploads) u.socket.write(chunk(Buffer.alloc(CAP / 2, 'a')));
    const trickle = setInterval(() => {
      for (const u of uploads) if (!u.socket.destroyed) u.socket.write(chunk('a'));
    }, 100);
    try {
      // The attack is real: all but the session's two admitted uploads are refused, and those two are in flight.
      // (Waits for the refusals themselves: on a loaded machine 130 answers take longer than any fixed pause.
      // They may take longer than the deadline too: an admitted upload then meets it, 504, and its slot goes
      // to another upload, which is in flight in its place.)
      await until('128 uploads answered', () => uploads.filter((u) => u.status() !== null).length >= 128);
      const answered = uploads.filter((u) => u.status() !== null);
      expect(answered.filter((u) => u.status() !== 429 && u.status() !== 504)).toEqual([]);
      // Two slots, each held a whole deadline by an upload that meets it: no more 504s than that allows
      // (none when the 130 were answered within one deadline, as on a quiet machine).
      const deadlinesRun = Math.floor((Date.now() - sentAt) / ATTACK_DEADLINE_MS);
      expect(answered.filter((u) => u.status() === 504).length).toBeLessThanOrEqual(2 * deadlinesRun);
      expect(uploads.filter((u) => u.status() === null)).toHaveLength(2);
      // Past the cap now, and still trickling: a relay that streams uploads would hold a pooled connection per upload.
      for (const u of uploads) if (!u.socket.destroyed) u.socket.write(chunk(Buffer.alloc(CAP / 2 + 1, 'a')));
      await until('the two admitted uploads refused with 413', () => uploads.every((u) => u.status() !== null));
      expect(uploads.filter((u) => u.status() === 413)).toHaveLength(2);

      const answer = await timed(relayGet(rig.bff.url, '/api/echo', victim));

      expect(answer.value.status).toBe(200);
      expect(answer.ms).toBeLessThan(ATTACK_DEADLINE_MS);
      expect(rig.standIn.seen.slice(before).map((s) => s.url)).toEqual(['/echo']);
    } finally {
      clearInterval(trickle);
      for (const u of uploads) u.socket.destroy();
    }
    assertNoEscape(rig.bff);
  });
});

describe('hostile user: limits on the relay', () => {
  let rig: HostileRig;

  beforeAll(async () => {
    rig = await startHostileRig('hostile-limits', {
      UPSTREAM_TIMEOUT_MS: String(DEADLINE_MS),
      UPSTREAM_CONNECTIONS: '4',
      RELAY_SESSION_CONCURRENCY: '2',
      MAX_BODY_BYTES: String(CAP),
      RELAY_FORWARD_HEADERS: 'gsql-replica',
    });
  });
  afterAll(async () => {
    await rig?.close();
  });

  it('when every pooled connection streams a slow answer, then a queued request gets 504 upstream_timeout within the deadline counted from its arrival', async () => {
    const sessions = await Promise.all([rig.login(), rig.login()]);
    const victim = await rig.login();
    const stop = new AbortController();
    // 2 sessions x 2 admitted = 4 slow but live answers on the 4 pooled connections, for as long as they read.
    const drips = sessions.flatMap((cookie) =>
      [0, 1].map(() =>
        request(`${rig.bff.url}/api/query/social/drip`, {
          headers: { cookie, 'x-requested-with': 'XMLHttpRequest' },
          signal: stop.signal,
        })
          .then((res) => res.body.dump({ limit: Infinity }).catch(() => undefined))
          .catch(() => undefined),
      ),
    );
    try {
      await until('four slow answers to hold the pool', () => rig.standIn.open() >= 4);

      const answer = await timed(relayGet(rig.bff.url, '/api/echo', victim));

      expect(answer.value).toMatchObject({ status: 504, code: 'upstream_timeout' });
      expect(answer.ms).toBeGreaterThan(DEADLINE_MS - 500);
      expect(answer.ms).toBeLessThan(DEADLINE_MS + 1500);
      expect(rig.standIn.open()).toBe(4); // the pool was still full when the victim got its answer
    } finally {
      stop.abort();
      await Promise.all(drips);
    }
    await until('the stand-in to hold no request', () => rig.standIn.open() === 0);
    expect((await relayGet(rig.bff.url, '/api/echo', victim)).status).toBe(200);
    assertNoEscape(rig.bff);
  });

  it('when one session has RELAY_SESSION_CONCURRENCY requests in flight, then its next gets 429 too_many_requests with Retry-After and another session is served', async () => {
    const greedy = await rig.login();
    const other = await rig.login();
    const hanging = [0, 1].map(() => relayGet(rig.bff.url, '/api/query/social/hang', greedy));
    await until('the two hanging requests to reach the stand-in', () => rig.standIn.open() >= 2);

    const third = await relayGet(rig.bff.url, '/api/echo', greedy);
    const served = await relayGet(rig.bff.url, '/api/echo', other);

    expect(third).toMatchObject({ status: 429, code: 'too_many_requests', retryAfter: '1' });
    expect(served.status).toBe(200);
    await Promise.all(hanging);
    // The slots come back once those requests ended.
    expect((await relayGet(rig.bff.url, '/api/echo', greedy)).status).toBe(200);
  });

  it('when a chunked upload passes MAX_BODY_BYTES, then 413 payload_too_large and the data server never sees the request', async () => {
    const cookie = await rig.login();
    const before = rig.standIn.seen.length;
    const upload = await rawExchange(rig.bff.port, chunkedHead('/api/query/social/load', cookie));
    // 5 MB in 64 KiB chunks, as fast as the socket takes them; the BFF must stop it at the cap.
    const piece = chunk(Buffer.alloc(64 * 1024, 'b'));
    for (
      let sent = 0;
      sent < 5 * 1024 * 1024 && !upload.socket.destroyed && upload.status() === null;
      sent += 64 * 1024
    ) {
      if (!upload.socket.write(piece))
        await new Promise((resolve) => upload.socket.once('drain', resolve).once('close', resolve));
    }
    await upload.closed;

    expect(upload.status()).toBe(413);
    expect(upload.received()).toContain('"code":"payload_too_large"');
    expect(rig.standIn.seen.slice(before)).toEqual([]);
  });

  it('when a POST declares a Content-Length over MAX_BODY_BYTES, then 413 before a byte of it is read, and nothing goes upstream', async () => {
    const cookie = await rig.login();
    const before = rig.standIn.seen.length;
    const upload = await rawExchange(
      rig.bff.port,
      `POST /api/query/social/load HTTP/1.1\r\nHost: x\r\nCookie: ${cookie}\r\nX-Requested-With: XMLHttpRequest\r\nContent-Length: ${5 * 1024 * 1024}\r\n\r\n`,
    );
    await upload.closed;

    expect(upload.status()).toBe(413);
    expect(rig.standIn.seen.slice(before)).toEqual([]);
  });

  it('when a body is exactly MAX_BODY_BYTES, then it is relayed whole', async () => {
    const cookie = await rig.login();
    const res = await request(`${rig.bff.url}/api/query/social/load`, {
      method: 'POST',
      headers: { cookie, 'x-requested-with': 'XMLHttpRequest', 'content-type': 'application/json' },
      body: Buffer.alloc(CAP, 'c'),
    });
    const text = await res.body.text();

    expect({ status: res.statusCode, text }).toMatchObject({ status: 200 });
    const body = JSON.parse(text) as { results: Array<{ bytes: number }> };
    expect(body.results[0]!.bytes).toBe(CAP);
  });

  it('when the browser sends method and URL override headers, then none reaches the data server; only the allowlist and RELAY_FORWARD_HEADERS do', async () => {
    const cookie = await rig.login();
    const before = rig.standIn.seen.length;
    const overrides = {
      'x-http-method-override': 'DELETE',
      'x-http-method': 'DELETE',
      'x-method-override': 'DELETE',
      'x-original-url': '/requesttoken',
      'x-rewrite-url': '/requesttoken',
      'x-original-method': 'DELETE',
      'x-anything-else': '1',
      'gsql-async': 'true',
    };
    const res = await request(`${rig.bff.url}/api/query/social/q`, {
      headers: {
        cookie,
        'x-requested-with': 'XMLHttpRequest',
        accept: 'application/json',
        'gsql-timeout': '500',
        'gsql-replica': '2',
        ...overrides,
      },
    });
    const text = await res.body.text();

    expect({ status: res.statusCode, text }).toMatchObject({ status: 200 });
    const seen = rig.standIn.seen.slice(before);
    expect(seen).toHaveLength(1);
    for (const name of Object.keys(overrides)) expect(seen[0]!.headers[name]).toBeUndefined();
    expect(seen[0]!.headers).toMatchObject({ accept: 'application/json', 'gsql-timeout': '500', 'gsql-replica': '2' });
    expect(seen[0]!.headers.authorization).toMatch(/^Bearer /);
  });
});

describe('hostile user: slow clients on the listening server', () => {
  let rig: HostileRig;

  beforeAll(async () => {
    rig = await startHostileRig('hostile-slow', { HEADERS_TIMEOUT_MS: '1000', REQUEST_TIMEOUT_MS: '2000' });
  });
  afterAll(async () => {
    await rig?.close();
  });

  it('when a client sends its headers byte by byte, then the server answers 408 and closes after HEADERS_TIMEOUT_MS', async () => {
    const slow = await rawExchange(rig.bff.port, 'GET /healthz HTTP/1.1\r\n');
    const drip = setInterval(() => !slow.socket.destroyed && slow.socket.write('X'), 200);
    try {
      const closed = await timed(slow.closed);
      expect(slow.status()).toBe(408);
      expect(closed.ms).toBeLessThan(5000);
    } finally {
      clearInterval(drip);
    }
  });

  it('when a logged-in client trickles a small body forever, then it loses the request after REQUEST_TIMEOUT_MS', async () => {
    const cookie = await rig.login();
    const slow = await rawExchange(rig.bff.port, chunkedHead('/api/query/social/load', cookie));
    const drip = setInterval(() => !slow.socket.destroyed && slow.socket.write(chunk('a')), 100);
    try {
      const closed = await timed(slow.closed);
      expect(closed.ms).toBeLessThan(8000);
      expect([408, 504, null]).toContain(slow.status());
    } finally {
      clearInterval(drip);
    }
    assertNoEscape(rig.bff);
  });
});
