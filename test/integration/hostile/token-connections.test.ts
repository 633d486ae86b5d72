import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { request } from 'undici';
import { startSimulator } from '../../../src/simulator/index.js';
import type { SimulatorHandle } from '../../../src/simulator/types.js';
import { startFaultProxy, type FaultProxy } from '../../helpers/fault-proxy.js';
import { uniquePrefix } from '../../helpers/redis-prefix.js';
import { startServiceProcess, type ServiceProcess } from '../../helpers/service-process.js';
import { assertNoEscape } from './hostile-rig.js';
import { dropPrefix, processEnv } from './process-env.js';
import { recordFigure } from '../../helpers/figures.js';

/**
 * Issue 21, the rule's audit (docs/architecture.md, "Bounded per principal and per address"): login
 * attempts come from clients nobody has verified yet, and each costs a token call. A real service process
 * whose data server sits behind a TCP proxy that holds every chunk 100 ms and counts open connections:
 * 40 logins at once (40 addresses would do the same) must not open more than UPSTREAM_CONNECTIONS
 * connections for token calls. Each comes from another address (X-Forwarded-For, trusted from loopback),
 * as a distributed client's would. Before, the token calls' agent had no per-origin cap: one connection
 * per concurrent login.
 */
const CONNECTIONS = 4;

describe('hostile clients: many logins at once', () => {
  let sim: SimulatorHandle;
  let proxy: FaultProxy;
  let bff: ServiceProcess;
  const prefix = uniquePrefix('token-connections');

  beforeAll(async () => {
    sim = await startSimulator({});
    proxy = await startFaultProxy({ port: sim.restppPort });
    bff = await startServiceProcess(
      {
        ...processEnv(prefix),
        TG_RESTPP_URL: proxy.url('http'),
        TG_VERSION: sim.version,
        UPSTREAM_CONNECTIONS: String(CONNECTIONS),
        TRUST_PROXY: 'loopback',
      },
      30_000,
    );
  });
  afterAll(async () => {
    await bff?.kill();
    await proxy?.close();
    await sim?.close();
    await dropPrefix(prefix);
  });

  it("when 40 logins arrive together, then the service holds at most UPSTREAM_CONNECTIONS token-call connections (plus the readiness probe's one)", async () => {
    const secrets = Array.from({ length: 40 }, (_, i) => sim.createSecret({ alias: `conn_${i}` }).value);
    proxy.set({ kind: 'delay', ms: 100 });
    let peak = 0;
    const sampler = setInterval(() => (peak = Math.max(peak, proxy.open())), 5);
    try {
      const statuses = await Promise.all(
        secrets.map(async (secret, i) => {
          const res = await request(`${bff.url}/auth/login`, {
            method: 'POST',
            headers: {
              'x-requested-with': 'XMLHttpRequest',
              'content-type': 'application/json',
              'x-forwarded-for': `198.51.100.${i + 1}`,
            },
            body: JSON.stringify({ secret }),
          });
          await res.body.dump();
          return res.statusCode;
        }),
      );
      expect(statuses.filter((s) => s !== 200)).toEqual([]);
    } finally {
      clearInterval(sampler);
      proxy.set({ kind: 'pass' });
    }
    recordFigure(
      `40 concurrent logins: at most ${peak} connections to the data server open at once (UPSTREAM_CONNECTIONS ${CONNECTIONS})`,
    );
    // The relay pool was not used; the readiness probe has a connection of its own (none on the old build).
    expect(peak).toBeLessThanOrEqual(CONNECTIONS + 1);
    assertNoEscape(bff);
  });
});
