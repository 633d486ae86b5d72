import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import { request } from 'undici';
import { startSimulator } from '../../../src/simulator/index.js';
import type { SimulatorHandle } from '../../../src/simulator/types.js';
import { uniquePrefix } from '../../helpers/redis-prefix.js';
import { startRedisServer, type RedisServer } from '../../helpers/redis-server.js';
import { startServiceProcess, type ServiceProcess } from '../../helpers/service-process.js';
import { login } from '../multi-instance/cluster.js';
import { assertNoEscape, relayGet } from './hostile-rig.js';
import { until } from '../../helpers/wait.js';
import { processEnv } from './process-env.js';
import { recordFigure } from '../../helpers/figures.js';

/**
 * Issue 21, item 1: anonymous readiness probes cannot starve logged-in users. A real service process with a
 * relay pool of 4 in front of the simulator answering every call 400 ms late, its own redis-server (so
 * the PINGs it gets are this service's only), 16 loops of anonymous GET /readyz for 6 s, and one logged-in
 * victim relaying GET /echo one request at a time meanwhile. Before the fix each /readyz took a relay
 * connection for an upstream /echo: the relay's queue grew by several requests a second, the victim's GETs
 * waited behind it into 504s, and /readyz itself timed out into 503.
 */
const LATENCY_MS = 400;
const FLOOD_MS = 6000;
const LOOPS = 16;
/** The victim's GETs the flood must outlast (the set-up), however slowly the machine answers them. */
const VICTIM_GETS = 5;

describe('hostile client: flooding /readyz', () => {
  let sim: SimulatorHandle;
  let redis: RedisServer;
  let bff: ServiceProcess;
  let secret: string;

  beforeAll(async () => {
    sim = await startSimulator({});
    secret = sim.createSecret({ alias: 'readyz_flood' }).value;
    redis = await startRedisServer();
    bff = await startServiceProcess(
      {
        ...processEnv(uniquePrefix('readyz-flood')),
        REDIS_URL: redis.url,
        TG_RESTPP_URL: sim.restppUrl,
        TG_VERSION: sim.version,
        UPSTREAM_CONNECTIONS: '4',
        UPSTREAM_TIMEOUT_MS: '3000',
        // The session cache PINGs its own invalidation connection every second, which commandstats cannot
        // tell from readiness PINGs; the readiness probes counted here do not depend on it.
        SESSION_CACHE: 'false',
      },
      30_000,
    );
  });
  afterAll(async () => {
    await bff?.kill();
    await redis?.stop();
    await sim?.close();
  });

  const readyz = async (): Promise<number> => {
    const res = await request(`${bff.url}/readyz`);
    await res.body.dump();
    return res.statusCode;
  };
  /** Readiness probes the data server got: GET /echo without a bearer (relayed ones carry the session's). */
  const probes = () => sim.seen().filter((r) => r.path === '/echo' && r.headers['authorization'] === undefined).length;
  const pings = async (): Promise<number> => {
    const client = new Redis(redis.url);
    const info = await client.info('commandstats');
    client.disconnect();
    return Number(/cmdstat_ping:calls=(\d+)/.exec(info)?.[1] ?? 0);
  };

  it('when 16 anonymous loops hammer /readyz against a slow data server, then a logged-in user keeps being served and each dependency gets about one probe a second', async () => {
    const cookie = await login(bff.url, secret);
    sim.setFaults({ latencyMs: LATENCY_MS });
    // Nothing probed before: readiness probes run only when /readyz is asked, and nobody asked yet.
    const probesBefore = probes();
    const pingsBefore = await pings();

    const started = performance.now();
    const statuses: number[] = [];
    let flooding = true;
    const flood = Array.from({ length: LOOPS }, async () => {
      while (flooding) statuses.push(await readyz());
    });
    const victim: Array<{ status: number; code?: string; ms: number }> = [];
    try {
      // The flood is under way: every loop had its first answer (they waited on the first shared probe).
      await until('an answer to each flooding loop', () => statuses.length >= LOOPS);
      // The victim relays one GET after another for the rest of FLOOD_MS, and at least VICTIM_GETS of them.
      while (performance.now() - started < FLOOD_MS || victim.length < VICTIM_GETS) {
        const t0 = performance.now();
        const answer = await relayGet(bff.url, '/api/echo', cookie);
        victim.push({ ...answer, ms: Math.round(performance.now() - t0) });
      }
    } finally {
      flooding = false;
      await Promise.all(flood);
    }
    const elapsedS = (performance.now() - started) / 1000;
    sim.setFaults({});

    const probeCount = probes() - probesBefore;
    const pingCount = (await pings()) - pingsBefore;
    const ready = statuses.filter((s) => s === 200).length;
    recordFigure(
      `readyz flood: ${statuses.length} /readyz in ${elapsedS.toFixed(1)} s (${ready} answered 200), ` +
        `data-server probes ${probeCount}, Redis PINGs ${pingCount}; victim ${victim.map((v) => `${v.status}/${v.ms}ms`).join(' ')}`,
    );

    // Every relayed GET of the victim was served (before: 504 upstream_timeout behind the probes' queue).
    expect(victim.length).toBeGreaterThanOrEqual(VICTIM_GETS);
    expect(victim.filter((v) => v.status !== 200)).toEqual([]);
    // About one probe per second per dependency, whatever the request rate (before: one per /readyz).
    expect(statuses.length).toBeGreaterThan(5 * elapsedS);
    expect(probeCount).toBeLessThanOrEqual(Math.ceil(elapsedS) + 1);
    expect(pingCount).toBeLessThanOrEqual(Math.ceil(elapsedS) + 1);
    // And the instance stayed ready: the data server did answer each probe (before: 503 nearly every time).
    expect(ready).toBeGreaterThanOrEqual(0.5 * statuses.length);
    assertNoEscape(bff);
  }, 120_000);
});
