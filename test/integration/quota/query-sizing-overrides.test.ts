import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startRig, type Rig } from '../../helpers/app-rig.js';
import { login } from '../multi-instance/cluster.js';

function policyFile(text: string): string {
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'sizing-')), 'policy.yaml');
  writeFileSync(file, text);
  return file;
}

// QUOTA_POLICY_FILE `queries:` gives one installed query its own GSQL-THREAD-LIMIT and GSQL-QueryLocalMemLimitMB
// caps: `sleep` may use more memory and fewer threads than the settings allow everything else; `hello` keeps them.
const POLICY = `
queries:
  - graph: social
    query: sleep
    threadLimit: 2
    memoryLimitMb: 4096
    memoryLimitDefaultMb: 1024
`;

describe('per-query thread and memory caps from the policy file', () => {
  let rig: Rig;
  let base: string;
  let cookie: string;
  beforeAll(async () => {
    rig = await startRig({
      label: 'sizing-overrides',
      sim: { version: '4.1.0' },
      env: {
        QUERY_THREAD_LIMIT_MAX: '8',
        QUERY_THREAD_LIMIT_DEFAULT: '4',
        QUERY_MEMORY_LIMIT_MAX_MB: '512',
        QUOTA_POLICY_FILE: policyFile(POLICY),
      },
    });
    base = await rig.listen();
    cookie = await login(base, rig.secret);
  });
  afterAll(() => rig.close());

  const get = (target: string, headers: [string, string][] = []) => {
    const h = new Headers({ 'X-Requested-With': 'XMLHttpRequest', Cookie: cookie });
    for (const [name, value] of headers) h.append(name, value);
    return fetch(`${base}${target}`, { headers: h });
  };
  const sizing = (from: number, upstreamPath: string) => {
    const seen = rig.sim
      .seen()
      .slice(from)
      .filter((r) => r.path === upstreamPath);
    expect(seen).toHaveLength(1);
    return [seen[0]!.headers['gsql-thread-limit'], seen[0]!.headers['gsql-querylocalmemlimitmb']];
  };

  test('when the browser sends neither, then the named query gets its own defaults and another query the settings', async () => {
    let from = rig.sim.seen().length;
    expect((await get('/api/query/social/sleep?ms=1')).status).toBe(200);
    expect(sizing(from, '/query/social/sleep')).toEqual(['2', '1024']);
    from = rig.sim.seen().length;
    expect((await get('/api/query/social/hello')).status).toBe(200);
    expect(sizing(from, '/query/social/hello')).toEqual(['4', '512']);
  });

  test.each([
    ['GSQL-THREAD-LIMIT', 'GSQL-QueryLocalMemLimitMB'],
    ['gsql-thread-limit', 'gsql-querylocalmemlimitmb'],
    ['Gsql-Thread-Limit', 'GSQL-QUERYLOCALMEMLIMITMB'],
    ['gSQL-tHREAD-lIMIT', 'Gsql-QueryLocalMemLimitMb'],
  ])('when the browser asks for more as %s and %s, then each query gets its own caps', async (t, m) => {
    const asked: [string, string][] = [
      [t, '64'],
      [m, '99999'],
    ];
    let from = rig.sim.seen().length;
    expect((await get('/api/query/social/sleep?ms=1', asked)).status).toBe(200);
    expect(sizing(from, '/query/social/sleep')).toEqual(['2', '4096']);
    from = rig.sim.seen().length;
    expect((await get('/api/query/social/hello', asked)).status).toBe(200);
    expect(sizing(from, '/query/social/hello')).toEqual(['8', '512']);
    // More than the setting's memory cap, within the query's own: passes as asked.
    from = rig.sim.seen().length;
    expect((await get('/api/query/social/sleep?ms=1', [[m, '2000']])).status).toBe(200);
    expect(sizing(from, '/query/social/sleep')).toEqual(['2', '2000']);
  });

  test('when the query is spelt with escapes, then it still gets its own caps (matched as TigerGraph reads it)', async () => {
    const from = rig.sim.seen().length;
    expect((await get('/api/query/soci%61l/sleep?ms=1', [['GSQL-QueryLocalMemLimitMB', '99999']])).status).toBe(200);
    const seen = rig.sim.seen().slice(from);
    expect(seen).toHaveLength(1);
    expect(seen[0]!.headers['gsql-querylocalmemlimitmb']).toBe('4096');
  });

  test('when a per-query value is malformed or doubled, then 400 invalid_request names the header and nothing goes upstream', async () => {
    const from = rig.sim.seen().length;
    for (const [headers, name] of [
      [[['GSQL-THREAD-LIMIT', 'two']], 'GSQL-THREAD-LIMIT'],
      [
        [
          ['GSQL-QueryLocalMemLimitMB', '100'],
          ['gsql-querylocalmemlimitmb', '200'],
        ],
        'GSQL-QueryLocalMemLimitMB',
      ],
    ] as [[string, string][], string][]) {
      const res = await get('/api/query/social/sleep?ms=1', headers);
      const body = (await res.json()) as { error: { code: string; message: string } };
      expect([res.status, body.error.code]).toEqual([400, 'invalid_request']);
      expect(body.error.message).toMatch(new RegExp(`^${name}: must be a whole number`));
    }
    expect(rig.sim.seen().slice(from)).toEqual([]);
  });

  test("when a query needs more memory than its capped limit, then the browser gets TigerGraph's abort, not a result", async () => {
    // The query needs 3000 MB: within its own 4096 MB cap when asked for, over the 1024 MB default.
    let res = await get('/api/query/social/sleep?ms=1&memMb=3000');
    let body = (await res.json()) as { error: boolean; code?: string; message: string };
    expect([res.status, body.error, body.code]).toEqual([500, true, 'GPE-MEMORY']);
    expect(body.message).toMatch(/exceeds the query memory limit \(1024 MB\)/);
    res = await get('/api/query/social/sleep?ms=1&memMb=3000', [['GSQL-QueryLocalMemLimitMB', '3000']]);
    body = (await res.json()) as { error: boolean; message: string };
    expect([res.status, body.error]).toEqual([200, false]);
    // Asking for more than the cap does not let it run: the cap is what TigerGraph gets.
    res = await get('/api/query/social/sleep?ms=1&memMb=5000', [['GSQL-QueryLocalMemLimitMB', '100000']]);
    body = (await res.json()) as { error: boolean; message: string };
    expect([res.status, body.error]).toEqual([500, true]);
    expect(body.message).toMatch(/\(4096 MB\)/);
  });
});

describe('the simulator on 3.x', () => {
  let rig: Rig;
  let base: string;
  let cookie: string;
  beforeAll(async () => {
    rig = await startRig({ label: 'sizing-3x', sim: { version: '3.9.3' }, env: { QUERY_MEMORY_LIMIT_MAX_MB: '10' } });
    base = await rig.listen();
    cookie = await login(base, rig.secret);
  });
  afterAll(() => rig.close());

  test('when a 3.x TigerGraph gets GSQL-QueryLocalMemLimitMB, then it is recorded but not applied (3.x documents no such header)', async () => {
    const from = rig.sim.seen().length;
    const res = await fetch(`${base}/api/query/social/sleep?ms=1&memMb=3000`, {
      headers: { 'X-Requested-With': 'XMLHttpRequest', Cookie: cookie },
    });
    expect(res.status).toBe(200);
    expect(rig.sim.seen().slice(from)[0]!.headers['gsql-querylocalmemlimitmb']).toBe('10');
  });
});
