import type supertest from 'supertest';
import { parseSetCookie } from '../../helpers/cookies.js';
import { type Rig } from '../../helpers/app-rig.js';
import { elapse, until } from '../../helpers/wait.js';

/**
 * Logs in a fresh agent and returns it with its session id (from the signed cookie `s:<sid>.<sig>`) and
 * a Cookie header value, for sending the same session to another instance.
 */
export async function loginWithSid(rig: Rig): Promise<{ agent: supertest.Agent; sid: string; cookie: string }> {
  const agent = rig.agent();
  const res = await agent.post('/auth/login').send({ secret: rig.secret, graph: 'social' });
  if (res.status !== 200) throw new Error(`login failed: ${res.status} ${JSON.stringify(res.body)}`);
  const header = ([res.headers['set-cookie']].flat() as string[]).find((c) =>
    c.startsWith(`${rig.config.session.cookieName}=`),
  );
  const { name, value } = parseSetCookie(header!);
  const signed = decodeURIComponent(value);
  return { agent, sid: signed.slice(2, signed.lastIndexOf('.')), cookie: `${name}=${value}` };
}

export interface Sample {
  start: number;
  end: number;
  status: number;
  code?: string;
}

/** Each agent requests `path` in a loop, one request at a time, until stopped. */
export function runLoad(agents: supertest.Agent[], path: string, pauseMs = 20) {
  return loopLoad(
    agents.map((agent) => async (): Promise<Sample> => {
      const start = Date.now();
      const res = await agent.get(path).timeout(30_000);
      return {
        start,
        end: Date.now(),
        status: res.status,
        ...(res.body?.error?.code && { code: res.body.error.code }),
      };
    }),
    pauseMs,
  );
}

/**
 * One loop per requester, one request at a time with `pauseMs` between, until stopped; requester i is
 * called with i, i+1, … (so a requester can rotate over instances). Collects every sample.
 */
export function loopLoad<S extends { start: number; status: number }>(
  requesters: Array<(n: number) => Promise<S>>,
  pauseMs: number,
) {
  const samples: S[] = [];
  // Per requester, when each of its answered requests began.
  const began: number[][] = requesters.map(() => []);
  let running = true;
  const loops = requesters.map(async (request, first) => {
    for (let n = first; running; n += 1) {
      const sample = await request(n);
      samples.push(sample);
      began[first]!.push(sample.start);
      // The load's shape, not a wait for anything: what sets its rate.
      await elapse(pauseMs, "a user's pause between two requests");
    }
  });
  return {
    samples,
    /**
     * Resolves once every requester has had `each` requests answered that it began at `since` (a
     * `Date.now()`) or later: the load is running (before a fault), or has run on (after one).
     */
    async untilAnswered(each: number, since = 0): Promise<void> {
      await until(`${each} answered requests from each of ${requesters.length} requesters`, () =>
        began.every((starts) => starts.filter((at) => at >= since).length >= each),
      );
    },
    /** True once every request that began in the last `ms` succeeded, and there were at least `min` of them. */
    healthyFor(ms: number, min: number): boolean {
      const recent = samples.filter((s) => s.start >= Date.now() - ms);
      return recent.length >= min && recent.every((s) => s.status === 200);
    },
    async stop(): Promise<S[]> {
      running = false;
      await Promise.all(loops);
      return samples;
    },
  };
}

export interface LoadReport {
  requests: number;
  failed: number;
  /** From the start of the first failed request to the end of the last one; 0 when none failed. */
  errorWindowMs: number;
  slowestMs: number;
  failures: Array<{ status: number; code?: string }>;
}

export function summarise(samples: Sample[]): LoadReport {
  const failed = samples.filter((s) => s.status !== 200);
  const errorWindowMs =
    failed.length === 0 ? 0 : Math.max(...failed.map((s) => s.end)) - Math.min(...failed.map((s) => s.start));
  return {
    requests: samples.length,
    failed: failed.length,
    errorWindowMs,
    slowestMs: Math.max(0, ...samples.map((s) => s.end - s.start)),
    failures: failed.map((s) => ({ status: s.status, ...(s.code && { code: s.code }) })),
  };
}
