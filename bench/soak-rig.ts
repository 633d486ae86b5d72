import { join } from 'node:path';
import { Redis } from 'ioredis';
import { parseOptions } from './options.js';
import { answers, freePort, startChild, type Child } from './processes.js';
import { startPrivateRedis } from './redis-stats.js';
import { simulatorClient } from './simulator-client.js';
import type { SoakOptions } from './soak-options.js';
import { redisUsedBytes } from './soak-probes.js';
import { bff, type Target } from './subjects.js';

export interface SoakRig {
  redis: Redis;
  /** used_memory of the private Redis before the BFF wrote anything. */
  emptyRedisBytes: number;
  restppUrl: string;
  ports: { bff: number; upstream: number; redis: number };
  target: Target;
  /** The processes the rig started: its redis-server, the simulator and the service. */
  children: readonly Child[];
  secrets: string[];
  stop(): Promise<void>;
}

/**
 * A private redis-server, the simulator and one BFF run exactly as the benchmark's "(d) tigergraph-bff,
 * Redis" subject (same flags and settings), whose tokens come due every `refreshEverySec` seconds; every
 * session logged in.
 */
export async function startSoakRig(root: string, options: SoakOptions): Promise<SoakRig> {
  const children: Child[] = [];
  let redis: Redis | undefined;
  const stop = async () => {
    redis?.disconnect();
    for (const child of children.reverse()) await child.stop().catch(() => undefined);
  };
  try {
    const own = await startPrivateRedis(join(options.outDir, 'soak-redis-server.log'), root);
    children.push(own.child);
    redis = new Redis(own.url, { maxRetriesPerRequest: 1 });
    const emptyRedisBytes = await redisUsedBytes(redis);

    const [restppPort, gsqlPort] = [await freePort(), await freePort()];
    const restppUrl = `http://127.0.0.1:${restppPort}`;
    const simChild = await startChild({
      name: 'simulator',
      command: process.execPath,
      args: [
        join(root, 'dist/simulator/cli.js'),
        '--restpp-port',
        String(restppPort),
        '--gsql-port',
        String(gsqlPort),
        '--latency-ms',
        '0',
      ],
      env: { PATH: process.env.PATH ?? '' },
      cwd: root,
      logFile: join(options.outDir, 'soak-simulator.log'),
      ready: answers(`${restppUrl}/__sim/counts`),
    });
    children.push(simChild);
    const sim = simulatorClient(restppUrl, `http://127.0.0.1:${gsqlPort}`);
    const secrets: string[] = [];
    for (let i = 0; i < options.sessions; i++) secrets.push(await sim.createSecret());

    const defaults = parseOptions([], {}, options.outDir);
    if (defaults === 'help') throw new Error('unreachable: no arguments');
    const bench = { ...defaults, connections: options.connections };
    const refresh = { TG_TOKEN_LIFETIME: '3600', TOKEN_REFRESH_BEFORE: String(3600 - options.refreshEverySec) };
    const target = await bff('soak', 'tigergraph-bff under soak', 'redis', refresh).start({
      root,
      options: bench,
      sim,
      simChild,
      secrets,
      redisUrl: own.url,
    });
    children.push(target.child);
    const ports = { bff: Number(new URL(target.url).port), upstream: restppPort, redis: Number(new URL(own.url).port) };
    return { redis, emptyRedisBytes, restppUrl, ports, target, children: [...children], secrets, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
