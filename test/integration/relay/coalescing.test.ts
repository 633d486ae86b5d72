import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startRig, type Rig } from '../../helpers/app-rig.js';
import { startRedisCluster, type RedisClusterRig } from '../../helpers/redis-cluster.js';
import { until } from '../../helpers/wait.js';
import { CSRF, login } from '../multi-instance/cluster.js';

// Under 512 bytes: `hello`'s answer. Over it: the demo graph's Person listing (778 bytes, declared).
const MAX_BYTES = 512;

function policyFile(): string {
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'coalesce-')), 'policy.yaml');
  // `hello` is a read: its POSTs may share a call. `sleep` is not named: its POSTs never do.
  writeFileSync(file, 'queries:\n  - {graph: social, query: hello, readOnly: true}\n');
  return file;
}

const ENV = {
  RELAY_COALESCE: 'true',
  RELAY_COALESCE_WAITERS: '16',
  RELAY_MAX_RESPONSE_BYTES: String(MAX_BYTES),
  QUOTA_POLICY_FILE: policyFile(),
};

interface Sent {
  done: Promise<{ status: number; text: string } | 'aborted'>;
  abort(): void;
}

/**
 * Identical concurrent reads of one principal share one TigerGraph call. The simulator holds every data call
 * (`holdData`) until the test lets go, so "concurrent" is a fact the test sets up, not a race it hopes to win:
 * each case waits until all its requests wait on a call (tgbff_relay_coalesce_waiting) before it judges.
 */
function coalescingCases(name: string, setup: () => Promise<{ rig: Rig; close(): Promise<void> }>) {
  describe(`request coalescing on ${name}`, () => {
    let rig: Rig;
    let close: () => Promise<void>;
    let base: string;
    let a1: string; // principal A, two sessions (two tabs logged in apart)
    let a2: string;
    let b: string; // principal B
    beforeAll(async () => {
      ({ rig, close } = await setup());
      base = await rig.listen();
      const other = rig.sim.createSecret({ alias: `co_${Math.random().toString(36).slice(2, 8)}` });
      [a1, a2, b] = await Promise.all([login(base, rig.secret), login(base, rig.secret), login(base, other.value)]);
    });
    afterAll(async () => {
      rig?.sim.setFaults({});
      await close?.();
    });

    const send = (target: string, cookie: string, init: { method?: string; body?: string } = {}): Sent => {
      const abort = new AbortController();
      const done = fetch(`${base}${target}`, {
        method: init.method ?? 'GET',
        headers: { ...CSRF, Cookie: cookie, ...(init.body !== undefined && { 'Content-Type': 'application/json' }) },
        ...(init.body !== undefined && { body: init.body }),
        signal: abort.signal,
      })
        .then(async (res) => ({ status: res.status, text: await res.text() }))
        .catch(() => 'aborted' as const);
      return { done, abort: () => abort.abort() };
    };
    const waiting = async (): Promise<number> => {
      const text = await rig.service.metrics.registry.getSingleMetricAsString('tgbff_relay_coalesce_waiting');
      return Number(/tgbff_relay_coalesce_waiting (\d+)/.exec(text)?.[1] ?? NaN);
    };
    const untilWaiting = (n: number) =>
      until(`${n} requests waiting on shared calls`, async () => (await waiting()) === n);
    /** The calls TigerGraph saw since `from` to `upstreamPath`, with `name=<name>` when given (this test's own). */
    const calls = (from: number, upstreamPath: string, name?: string) =>
      rig.sim
        .seen()
        .slice(from)
        .filter((r) => r.path === upstreamPath && (name === undefined || r.query.includes(`name=${name}`)));
    const held = async <T>(work: () => Promise<T>): Promise<T> => {
      rig.sim.setFaults({ holdData: true });
      try {
        return await work();
      } finally {
        rig.sim.setFaults({});
      }
    };

    test('when one principal sends 10 identical reads at once (two sessions), then TigerGraph gets 1 call and all 10 its answer', async () => {
      const from = rig.sim.seen().length;
      const sent = await held(async () => {
        const sent = Array.from({ length: 10 }, (_, i) => send('/api/query/social/hello?name=Ada', i % 2 ? a1 : a2));
        await untilWaiting(10);
        // Waiting as soon as they joined; the call itself goes up once the first one's token is there.
        await until('the shared call upstream', () => calls(from, '/query/social/hello', 'Ada').length === 1);
        return sent;
      });
      const answers = await Promise.all(sent.map((s) => s.done));
      expect(new Set(answers.map((a) => JSON.stringify(a)))).toEqual(
        new Set([JSON.stringify({ status: 200, text: (answers[0] as { text: string }).text })]),
      );
      expect((answers[0] as { text: string }).text).toContain('Hello, Ada!');
      expect(calls(from, '/query/social/hello', 'Ada')).toHaveLength(1);
      // Not a cache: the same read once the call is over makes a call of its own.
      expect((await send('/api/query/social/hello?name=Ada', a1).done) as { status: number }).toMatchObject({
        status: 200,
      });
      expect(calls(from, '/query/social/hello', 'Ada')).toHaveLength(2);
    });

    test('when two principals send the same read at once, then TigerGraph gets one call per principal', async () => {
      const from = rig.sim.seen().length;
      const sent = await held(async () => {
        const sent = Array.from({ length: 10 }, (_, i) => send('/api/query/social/hello?name=Bo', i % 2 ? a1 : b));
        await untilWaiting(10);
        await until('both principals to be upstream', () => calls(from, '/query/social/hello', 'Bo').length === 2);
        return sent;
      });
      const answers = await Promise.all(sent.map((s) => s.done));
      expect(answers.map((a) => (a as { status: number }).status)).toEqual(Array(10).fill(200));
      const tokens = new Set(calls(from, '/query/social/hello', 'Bo').map((r) => r.headers.authorization));
      expect([calls(from, '/query/social/hello', 'Bo').length, tokens.size]).toEqual([2, 2]);
    });

    test('when the request that made the call and another leave, then the rest still get the answer', async () => {
      const from = rig.sim.seen().length;
      const sent = await held(async () => {
        const first = send('/api/query/social/hello?name=Cy', a1);
        await untilWaiting(1);
        const rest = [send('/api/query/social/hello?name=Cy', a2), send('/api/query/social/hello?name=Cy', a1)];
        await untilWaiting(3);
        first.abort();
        rest[0]!.abort();
        await untilWaiting(1);
        return [first, ...rest];
      });
      expect(await sent[0]!.done).toBe('aborted');
      expect(await sent[1]!.done).toBe('aborted');
      expect(await sent[2]!.done).toMatchObject({ status: 200 });
      expect(calls(from, '/query/social/hello', 'Cy')).toHaveLength(1);
    });

    test('when every waiter leaves, then the upstream call ends', async () => {
      const from = rig.sim.seen().length;
      await held(async () => {
        const sent = [0, 1, 2].map((i) => send('/api/query/social/hello?name=Di', i === 1 ? a2 : a1));
        await untilWaiting(3);
        await until('the shared call upstream', () => calls(from, '/query/social/hello', 'Di').length === 1);
        for (const s of sent) s.abort();
        for (const s of sent) expect(await s.done).toBe('aborted');
        await until(
          'TigerGraph to see its caller go',
          () => calls(from, '/query/social/hello', 'Di')[0]?.closedEarly === true,
        );
        expect(await waiting()).toBe(0);
      });
      expect(calls(from, '/query/social/hello', 'Di')).toHaveLength(1);
    });

    test('when reads differ in body, or a POST is not marked read-only, then they make calls of their own', async () => {
      const from = rig.sim.seen().length;
      const sent = await held(async () => {
        const sent = [
          send('/api/query/social/hello', a1, { method: 'POST', body: '{"name":"Ed"}' }),
          send('/api/query/social/hello', a2, { method: 'POST', body: '{"name":"Ed"}' }),
          send('/api/query/social/hello', a1, { method: 'POST', body: '{"name":"Flo"}' }),
          send('/api/query/social/sleep', a1, { method: 'POST', body: '{"ms":1}' }),
          send('/api/query/social/sleep', a1, { method: 'POST', body: '{"ms":1}' }),
        ];
        // The three read-only POSTs wait on shared calls; the two others are relayed as always.
        await untilWaiting(3);
        await until('two hello calls and two sleep calls upstream', () =>
          calls(from, '/query/social/hello').length === 2 && calls(from, '/query/social/sleep').length === 2
            ? true
            : false,
        );
        return sent;
      });
      const answers = (await Promise.all(sent.map((s) => s.done))) as { status: number; text: string }[];
      expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200]);
      expect([answers[0]!.text, answers[2]!.text].map((t) => /Hello, (\w+)!/.exec(t)?.[1])).toEqual(['Ed', 'Flo']);
      expect(calls(from, '/query/social/hello')).toHaveLength(2);
    });

    test('when the shared answer is over RELAY_MAX_RESPONSE_BYTES, declared or streamed, then every waiter gets 502 response_too_large', async () => {
      for (const target of [
        '/api/graph/social/vertices/Person',
        '/api/query/social/stream?chunks=20&delayMs=1&chunkBytes=100',
      ]) {
        const from = rig.sim.seen().length;
        const sent = await held(async () => {
          const sent = [a1, a2, a1].map((c) => send(target, c));
          await untilWaiting(3);
          return sent;
        });
        const answers = (await Promise.all(sent.map((s) => s.done))) as { status: number; text: string }[];
        for (const a of answers) {
          expect({ target, status: a.status }).toEqual({ target, status: 502 });
          expect(JSON.parse(a.text)).toMatchObject({ error: { code: 'response_too_large' } });
        }
        expect(calls(from, target.slice('/api'.length).split('?')[0]!)).toHaveLength(1);
      }
    });

    test('when more identical reads come than RELAY_COALESCE_WAITERS, then the ones over it make their own call', async () => {
      const from = rig.sim.seen().length;
      const sent = await held(async () => {
        const sent = Array.from({ length: 16 }, () => send('/api/query/social/hello?name=Hal', a1));
        await untilWaiting(16);
        sent.push(send('/api/query/social/hello?name=Hal', a2));
        await until('the 17th read upstream on its own', () => calls(from, '/query/social/hello', 'Hal').length === 2);
        return sent;
      });
      const answers = (await Promise.all(sent.map((s) => s.done))) as { status: number }[];
      expect(answers.map((a) => a.status)).toEqual(Array(17).fill(200));
      expect(calls(from, '/query/social/hello', 'Hal')).toHaveLength(2);
    });

    test("when TigerGraph refuses the first request's token, then its replay is its own and the others make their own calls", async () => {
      const from = rig.sim.seen().length;
      const sent = await held(async () => {
        const sent = [send('/api/query/social/hello?name=Gus', a1), send('/api/query/social/hello?name=Gus', a2)];
        await untilWaiting(2);
        await until('the shared call upstream', () => calls(from, '/query/social/hello', 'Gus').length === 1);
        // The token the shared call carries dies while TigerGraph holds it.
        const token = String(calls(from, '/query/social/hello', 'Gus')[0]!.headers.authorization).replace(
          /^Bearer /,
          '',
        );
        rig.sim.revokeToken(token);
        return sent;
      });
      const answers = (await Promise.all(sent.map((s) => s.done))) as { status: number; text: string }[];
      expect(answers.map((a) => a.status)).toEqual([200, 200]);
      // The refused call, the first request's replay with a new token, the second request's own call.
      const seen = calls(from, '/query/social/hello', 'Gus');
      expect(seen.map((r) => r.status)).toEqual([401, 200, 200]);
    });
  });
}

coalescingCases('standalone Redis', async () => {
  const rig = await startRig({ label: 'coalesce', env: ENV });
  return { rig, close: () => rig.close() };
});

let cluster: RedisClusterRig | undefined;
coalescingCases('Redis Cluster', async () => {
  cluster = await startRedisCluster();
  const rig = await startRig({
    label: 'coalesce',
    store: { env: { REDIS_CLUSTER_NODES: cluster.nodeList } },
    env: ENV,
  });
  return {
    rig,
    async close() {
      await rig.close();
      await cluster?.stop();
    },
  };
});

describe('request coalescing past RELAY_COALESCE_MAX_BYTES', () => {
  let rig: Rig;
  let base: string;
  let cookie: string;
  beforeAll(async () => {
    // 300 bytes for all shared answers together: the 20 x 100-byte stream below cannot be held.
    rig = await startRig({ label: 'coalesce-bytes', env: { RELAY_COALESCE: 'true', RELAY_COALESCE_MAX_BYTES: '300' } });
    base = await rig.listen();
    cookie = await login(base, rig.secret);
  });
  afterAll(async () => {
    rig?.sim.setFaults({});
    await rig?.close();
  });

  test('when a shared answer passes the memory for shared answers, then the first waiter streams it and the others make their own calls', async () => {
    const target = '/api/query/social/stream?chunks=20&delayMs=1&chunkBytes=100';
    const from = rig.sim.seen().length;
    rig.sim.setFaults({ holdData: true });
    const sent = [0, 1, 2].map(() =>
      fetch(`${base}${target}`, { headers: { ...CSRF, Cookie: cookie } }).then(async (r) => ({
        status: r.status,
        text: await r.text(),
      })),
    );
    try {
      await until('three reads waiting on one call', async () =>
        /tgbff_relay_coalesce_waiting 3/.test(
          await rig.service.metrics.registry.getSingleMetricAsString('tgbff_relay_coalesce_waiting'),
        ),
      );
    } finally {
      rig.sim.setFaults({});
    }
    const answers = await Promise.all(sent);
    for (const a of answers) {
      expect(a.status).toBe(200);
      expect(JSON.parse(a.text)).toMatchObject({ error: false });
    }
    expect(
      rig.sim
        .seen()
        .slice(from)
        .filter((r) => r.path === '/query/social/stream'),
    ).toHaveLength(3);
    const counted = await rig.service.metrics.registry.getSingleMetricAsString('tgbff_relay_coalesced_total');
    expect(counted).toMatch(/result="alone"} 2/);
  });
});
