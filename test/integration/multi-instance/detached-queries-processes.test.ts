import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { DEFAULT_RELAY_ALLOW } from '../../../src/relay/allowlist.js';
import { startSimulator } from '../../../src/simulator/index.js';
import type { SimulatorHandle } from '../../../src/simulator/types.js';
import { uniquePrefix } from '../../helpers/redis-prefix.js';
import { startServiceProcess, type ServiceProcess } from '../../helpers/service-process.js';
import { dropPrefix, processEnv } from '../hostile/process-env.js';
import { login } from './cluster.js';

/**
 * Issue 45 item 2 with real processes: two service instances (dist/main.js) on the machine's Redis and the
 * simulator. The owner of a detached query reads and aborts it through either instance (ownership lives in
 * Redis, not in a process); another user, on either instance, cannot see, list or abort it, whatever id or
 * `all` they send.
 */
const CSRF = { 'X-Requested-With': 'XMLHttpRequest' };

describe('detached queries across two service processes', () => {
  let sim: SimulatorHandle;
  let instances: ServiceProcess[] = [];
  const prefix = uniquePrefix('detached-procs');

  beforeAll(async () => {
    sim = await startSimulator({});
    const env = {
      ...processEnv(prefix),
      TG_RESTPP_URL: sim.restppUrl,
      TG_GSQL_URL: sim.gsqlUrl,
      TG_VERSION: sim.version,
      METRICS_PORT: 'off',
      DETACHED_QUERIES: 'true',
      QUERY_TIMEOUT_MAX_MS: '300000',
      RELAY_ALLOW: `${DEFAULT_RELAY_ALLOW},GET /query_status,GET /query_result,GET /abortquery,GET /showprocesslist`,
    };
    instances = await Promise.all([0, 1].map(() => startServiceProcess(env)));
  });

  afterAll(async () => {
    await Promise.allSettled(instances.map((i) => i.kill()));
    await dropPrefix(prefix);
    await sim?.close();
  });

  const get = async (instance: number, path: string, cookie: string, headers: Record<string, string> = {}) => {
    const res = await fetch(`${instances[instance]!.url}/api${path}`, {
      headers: { ...CSRF, ...headers, Cookie: cookie },
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  const statusOf = (body: Record<string, unknown>) =>
    Object.fromEntries(
      (body.results as Array<{ requestid: string; status: string }>).map((r) => [r.requestid, r.status]),
    );

  test('when one user starts a detached query on one instance, then only they can read, list or abort it, on either', async () => {
    const alice = await login(
      instances[0]!.url,
      sim.createSecret({ alias: `a_${randomBytes(3).toString('hex')}` }).value,
    );
    const bob = await login(
      instances[1]!.url,
      sim.createSecret({ alias: `b_${randomBytes(3).toString('hex')}` }).value,
    );
    const started = await get(0, '/query/social/sleep?ms=120000', alice, {
      'GSQL-ASYNC': 'true',
      'GSQL-TIMEOUT': '120000',
    });
    expect(started.status).toBe(200);
    const id = started.body.request_id as string;
    const q = encodeURIComponent(id);

    // The owner, through the other instance: ownership is in Redis.
    expect(statusOf((await get(1, `/query_status?requestid=${q}`, alice)).body)).toEqual({ [id]: 'running' });
    for (const instance of [0, 1]) {
      const status = (await get(instance, `/query_status?requestid=${q}`, bob)).body;
      expect([status.results, status.unknown_requestid]).toEqual([[], [id]]);
      expect(statusOf((await get(instance, '/query_status?requestid=all', bob)).body)).toEqual({});
      expect((await get(instance, '/showprocesslist/social', bob)).body.results).toEqual([]);
      expect((await get(instance, `/query_result?requestid=${q}`, bob)).body.error).toBe(true);
      for (const abort of [`requestid=${q}`, 'requestid=all', ''])
        expect((await get(instance, `/abortquery/social?${abort}`, bob)).body.results).toEqual([
          { aborted_queries: [] },
        ]);
    }
    expect(statusOf((await get(0, `/query_status?requestid=${q}`, alice)).body)).toEqual({ [id]: 'running' });
    const aborted = (await get(1, '/abortquery/social?requestid=all', alice)).body;
    expect(aborted.results).toEqual([
      { aborted_queries: [{ requestid: id, url: expect.stringContaining('/query/social/sleep') }] },
    ]);
    expect(statusOf((await get(0, `/query_status?requestid=${q}`, alice)).body)).toEqual({ [id]: 'aborted' });
  });
});
