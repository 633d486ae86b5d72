/**
 * Sizing figures for docs/deploying.md ("Sizing") and the manifests' resources, measured, not guessed:
 * Redis bytes per logged-in session (MEMORY USAGE of every key under a unique prefix of the shared
 * Redis, after N logins each followed by a relayed request so the token state exists too), and the RSS
 * of one service process idle and after that load. Child processes: the compiled service (built by the
 * jest globalSetup) and the simulator in this process as the data server. The figures are printed
 * (`SIZING …`); the assertions guard the numbers the docs and manifests rely on, with generous margins.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import { CSRF } from '../../helpers/app-rig.js';
import { deleteKeysWithPrefix, uniquePrefix } from '../../helpers/redis-prefix.js';
import { startServiceProcess, type ServiceProcess } from '../../helpers/service-process.js';
import { startSimulator } from '../../../src/simulator/index.js';
import type { SimulatorHandle } from '../../../src/simulator/types.js';
import { recordFigure } from '../../helpers/figures.js';
import { until } from '../../helpers/wait.js';

const SESSIONS = 300;
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

const rssMb = (pid: number): number => {
  const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  return Number(kb) / 1024;
};

describe('sizing: Redis bytes per session and RSS per replica', () => {
  const prefix = uniquePrefix('sizing');
  const redis = new Redis(REDIS_URL, { lazyConnect: true });
  let sim: SimulatorHandle;
  let service: ServiceProcess;

  beforeAll(async () => {
    await redis.connect();
    sim = await startSimulator({});
    service = await startServiceProcess({
      NODE_ENV: 'test',
      TG_RESTPP_URL: sim.restppUrl,
      TG_VERSION: sim.version,
      COOKIE_SECURE: 'false',
      REDIS_URL,
      REDIS_PREFIX: prefix,
      // 300 logins from one address in a few seconds: a measurement, not a client the budget is for.
      LOGIN_ADDRESS_BUDGET: '1000',
    });
  });
  afterAll(async () => {
    await service?.kill();
    await sim?.close();
    await deleteKeysWithPrefix(redis as never, prefix);
    redis.disconnect();
  });

  it(`measures ${SESSIONS} logged-in sessions with tokens`, async () => {
    // Idle means started up: Redis connected and the data server checked, which /readyz says (its 200).
    await until('the service to be ready', async () => (await fetch(`${service.url}/readyz`)).status === 200);
    const idleRss = rssMb(service.proc.pid!);

    const cookies: string[] = [];
    for (let i = 0; i < SESSIONS; i++) {
      const res = await fetch(`${service.url}/auth/login`, {
        method: 'POST',
        headers: { ...CSRF, 'content-type': 'application/json' },
        body: JSON.stringify({ secret: sim.createSecret({ alias: `sizing_${i}` }).value, graph: 'social' }),
      });
      expect(res.status).toBe(200);
      await res.arrayBuffer();
      cookies.push(res.headers.get('set-cookie')!.split(';')[0]!);
    }
    // One relayed request per session (so its token state is stored), 20 at a time.
    for (let i = 0; i < cookies.length; i += 20) {
      await Promise.all(
        cookies.slice(i, i + 20).map(async (cookie) => {
          const res = await fetch(`${service.url}/api/echo`, { headers: { ...CSRF, cookie } });
          expect(res.status).toBe(200);
          await res.arrayBuffer();
        }),
      );
    }
    const loadedRss = rssMb(service.proc.pid!);

    let bytes = 0;
    let keys = 0;
    const byKind: Record<string, number> = {};
    let cursor = '0';
    do {
      const [next, found] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
      for (const key of found) {
        const usage = Number(await redis.memory('USAGE', key, 'SAMPLES', '0'));
        bytes += usage;
        keys++;
        const kind = key.slice(prefix.length).split(':')[0]!;
        byKind[kind] = (byKind[kind] ?? 0) + usage;
      }
      cursor = next;
    } while (cursor !== '0');
    const perSession = bytes / SESSIONS;

    recordFigure(
      `SIZING sessions=${SESSIONS} keys=${keys} redisBytes=${bytes} bytesPerSession=${perSession.toFixed(0)} ` +
        `sessionsPerGiB=${Math.floor(2 ** 30 / perSession)} byKind=${JSON.stringify(byKind)} ` +
        `rssIdleMB=${idleRss.toFixed(1)} rssAfterLoadMB=${loadedRss.toFixed(1)}`,
    );
    // docs/deploying.md says "under 2 KB per session"; the manifests' memory request/limit assume these.
    expect(keys).toBeGreaterThanOrEqual(SESSIONS);
    expect(perSession).toBeGreaterThan(100);
    expect(perSession).toBeLessThan(2048);
    expect(idleRss).toBeLessThan(160);
    expect(loadedRss).toBeLessThan(256);
  }, 120_000);
});
