import { expect } from '@jest/globals';
import { performance } from 'node:perf_hooks';
import type { ServiceProcess } from '../../helpers/service-process.js';
import { until } from '../../helpers/wait.js';
import { call, type Cluster } from './cluster.js';

// What the tests of the session cache read from the instances: their metrics, and the tokens the data
// server saw.

/** One series of an instance's /metrics (the sum over its labels), e.g. tgbff_session_cache_entries. */
export async function metric(instance: ServiceProcess, name: string, labels = ''): Promise<number> {
  const text = await (await fetch(`${instance.metricsUrl}/metrics`)).text();
  return text
    .split('\n')
    .filter((line) => line.startsWith(`${name}{`) || line.startsWith(`${name} `))
    .filter((line) => line.includes(labels))
    .reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(' ') + 1)), 0);
}

export const entries = (instance: ServiceProcess) => metric(instance, 'tgbff_session_cache_entries');

/** Bearer tokens the data server saw on requests from `from` on (index into sim.seen()). */
export function tokensSeen(cluster: Cluster, from = 0): Set<string> {
  const tokens = new Set<string>();
  for (const seen of cluster.sim.seen().slice(from)) {
    const auth = seen.headers.authorization;
    if (typeof auth === 'string' && auth.startsWith('Bearer ')) tokens.add(auth.slice('Bearer '.length));
  }
  return tokens;
}

/**
 * Requests every cookie at every instance until each instance holds all of them in its cache. A request's
 * touch invalidates the record everywhere once per instance, so the first round leaves gaps the next fills.
 */
export async function warmEverywhere(cluster: Cluster, cookies: string[]): Promise<void> {
  const base = await Promise.all(cluster.instances.map(entries));
  for (let round = 0; round < 6; round++) {
    for (const instance of cluster.instances) {
      const answers = await Promise.all(cookies.map((cookie) => call(instance.url, '/api/echo', cookie)));
      expect(answers.map((a) => a.status)).toEqual(cookies.map(() => 200));
    }
    const held = await Promise.all(cluster.instances.map(entries));
    if (held.every((n, i) => n === base[i]! + cookies.length)) return served(cluster, cookies);
  }
  throw new Error('the sessions never all came to be cached on every instance');
}

/**
 * One more round, every answer from the caches: each instance's hits grow by one per cookie. A session's
 * touch (at most once per instance per touch window, 1 % of the idle timeout) drops its record everywhere;
 * on a starved CI worker the warm-up outlasted the 18 s window of the default idle timeout, and one session
 * missed at B and C (39 of 40). So up to three rounds, the first one wholly served from the caches passing:
 * that round still shows every session warm in every cache.
 */
async function served(cluster: Cluster, cookies: string[]): Promise<void> {
  const hits = (i: ServiceProcess) => metric(i, 'tgbff_session_cache_lookups_total', 'result="hit"');
  let grew: number[] = [];
  for (let round = 1; round <= 3; round++) {
    const before = await Promise.all(cluster.instances.map(hits));
    for (const instance of cluster.instances) {
      const answers = await Promise.all(cookies.map((cookie) => call(instance.url, '/api/echo', cookie)));
      expect(answers.map((a) => a.status)).toEqual(cookies.map(() => 200));
    }
    const after = await Promise.all(cluster.instances.map(hits));
    grew = after.map((n, i) => n - before[i]!);
    if (grew.every((n) => n === cookies.length)) return;
  }
  expect(grew).toEqual(cluster.instances.map(() => cookies.length));
}

/**
 * Makes `request` (one request of one session at an instance, answering its status, 200 expected) at each
 * of `instances` in rounds until one round is answered from every cache (each instance's hit counter
 * moves). A touch (at most one per instance per touch window, 1 % of the idle timeout) drops the record
 * everywhere, and right after start-up a cache may still be setting tracking up, so it can take a few
 * rounds. The instances are asked at the same time, so a round is as short as one instance's three calls:
 * asked one after another, a round on a loaded machine outlasted the touch window every time.
 */
export async function servedFromCaches(
  instances: ServiceProcess[],
  request: (instance: ServiceProcess) => Promise<number>,
): Promise<void> {
  const hits = (i: ServiceProcess) => metric(i, 'tgbff_session_cache_lookups_total', 'result="hit"');
  const servedFromCache = async (instance: ServiceProcess): Promise<boolean> => {
    const before = await hits(instance);
    expect(await request(instance)).toBe(200);
    return (await hits(instance)) > before;
  };
  for (let round = 1; round <= 50; round++) {
    if ((await Promise.all(instances.map(servedFromCache))).every(Boolean)) return;
  }
  throw new Error('the session never came to be served from every cache');
}

/**
 * After a session ended on one instance: waits until `others` hold nothing in their caches (their own
 * gauge: the invalidation arrived) and returns how long that took from `since` (performance.now()).
 */
export async function droppedBy(others: ServiceProcess[], since: number): Promise<number> {
  await until(
    'the other caches to be empty',
    async () => {
      const held = await Promise.all(others.map(entries));
      if (held.some((n) => n !== 0)) throw new Error(`caches still hold ${held.join(', ')} entries`);
      return true;
    },
    { intervalMs: 5 },
  );
  return performance.now() - since;
}

/**
 * Every instance (of `order`, all by default) refuses `cookies` (401 with one of `codes`), and the data
 * server saw none of `ended`'s tokens in those requests.
 */
export async function refusedEverywhere(
  cluster: Cluster,
  cookies: string | string[],
  ended: Set<string>,
  codes = ['not_authenticated'],
  order = cluster.instances,
): Promise<void> {
  const all = typeof cookies === 'string' ? [cookies] : cookies;
  const after = cluster.sim.seen().length;
  for (const instance of order) {
    const answers = await Promise.all(all.map((cookie) => call(instance.url, '/api/echo', cookie)));
    for (const res of answers) {
      expect(res.status).toBe(401);
      expect(codes).toContain(res.body.error?.code);
    }
  }
  expect([...tokensSeen(cluster, after)].filter((token) => ended.has(token))).toEqual([]);
  expect(
    cluster.sim
      .seen()
      .slice(after)
      .filter((seen) => seen.path.startsWith('/echo')),
  ).toEqual([]);
}
