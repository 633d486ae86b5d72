import { delay, sendJson } from './http-server.js';
import type { DemoGraph } from './demo-graph.js';
import { restppError } from './restpp-errors.js';
import {
  memoryLimitMb,
  queryTimeout,
  responseLimit,
  sendMemoryAborted,
  sendQueryTimeout,
  sendResponseTooLarge,
} from './query-limits.js';
import type { Sim, SimRequest } from './sim-context.js';

/** Installed demo queries: results as GSQL PRINT would give them, or an error to send. */
type QueryResult = { results: unknown[] } | { code: string; message: string };

/**
 * The installed demo queries and their parameters with GSQL types: the one list that routing, `/endpoints`
 * and so the demo page's query list read. A parameter with a default (GSQL `INT ms = 0`) may be left out;
 * one without is required, and `/endpoints` says which as RESTPP does (`min_count` 1, or 0 and a `default`).
 */
export const DEMO_QUERY_PARAMS = {
  hello: { name: { type: 'STRING', default: 'World' } },
  friends: { person: { type: 'VERTEX<Person>' } },
  stream: {
    chunks: { type: 'INT', default: '10' },
    delayMs: { type: 'INT', default: '20' },
    chunkBytes: { type: 'INT', default: '16384' },
  },
  sleep: { ms: { type: 'INT', default: '0' }, memMb: { type: 'INT', default: '0' } },
} as const satisfies Record<string, Record<string, { type: string; default?: string }>>;

export type DemoQuery = keyof typeof DEMO_QUERY_PARAMS;
export const DEMO_QUERIES = Object.keys(DEMO_QUERY_PARAMS) as readonly DemoQuery[];

export function runDemoQuery(graph: DemoGraph, name: string, params: Record<string, unknown>): QueryResult | undefined {
  if (name === 'hello') {
    return { results: [{ greeting: `Hello, ${String(params['name'] ?? 'World')}!` }] };
  }
  if (name === 'friends') {
    const person = String(params['person'] ?? '');
    // Text modelled on GSQL's vertex-parameter error; code inferred.
    if (!graph.vertex('Person', person)) {
      return { code: 'REST-30000', message: `Failed to convert user vertex id for parameter person: '${person}'` };
    }
    return { results: [{ person, friends: graph.friendsOf(person) }, { '@@edges': graph.friendEdges(person) }] };
  }
  return undefined;
}

const clampInt = (raw: unknown, fallback: number, max: number): number => {
  const n = Number(raw);
  return Number.isFinite(n) && n >= 0 ? Math.min(Math.floor(n), max) : fallback;
};

/**
 * `stream`: a large answer written in chunks with pauses, so relays can be tested for streaming,
 * back-pressure and client aborts. Stops writing when the client goes away.
 */
export async function streamQuery(sim: Sim, r: SimRequest, params: Record<string, unknown>): Promise<void> {
  const chunks = clampInt(params['chunks'], 10, 100_000);
  const delayMs = clampInt(params['delayMs'], 20, 10_000);
  const chunkBytes = clampInt(params['chunkBytes'], 16_384, 1_048_576);
  if (chunks === 0)
    return sendJson(r.res, 200, { version: sim.envelopeVersion, error: false, message: '', results: [] });
  const { res } = r;
  let closed = false;
  res.on('close', () => {
    closed = true;
  });
  res.writeHead(200, { 'Content-Type': 'application/json' });
  res.write(`{"version":${JSON.stringify(sim.envelopeVersion)},"error":false,"message":"","results":[`);
  const filler = 'x'.repeat(chunkBytes);
  for (let i = 0; i < chunks && !closed; i++) {
    if (i > 0 && delayMs > 0) await delay(delayMs);
    if (closed) break;
    const ok = res.write(`${i > 0 ? ',' : ''}{"chunk":${i},"data":"${filler}"}`);
    if (!ok)
      await new Promise<void>((resolve) => {
        res.once('drain', resolve);
        res.once('close', resolve);
      });
  }
  if (!closed) res.end(']}');
}

export function sendQueryResult(sim: Sim, r: SimRequest, outcome: QueryResult): void {
  if ('code' in outcome) return restppError(sim, r.res, 400, outcome.code, outcome.message);
  // TigerGraph builds the whole result before answering, so RESPONSE-LIMIT replaces it by an error.
  const text = JSON.stringify({ version: sim.envelopeVersion, error: false, message: '', results: outcome.results });
  const limit = responseLimit(r);
  const bytes = Buffer.byteLength(text);
  if (limit !== undefined && bytes > limit) return sendResponseTooLarge(sim, r, bytes, limit);
  sendJson(r.res, 200, text);
}

/**
 * `sleep`: a query that runs `ms` milliseconds (at most 300 s), as a long installed query would. Like
 * TigerGraph it stops at its time limit (GSQL-TIMEOUT, else 16 s) and answers the timeout error instead.
 * `memMb` is the memory it needs per machine: over a 4.x request's GSQL-QueryLocalMemLimitMB it is aborted
 * at once, as TigerGraph aborts a query past its memory limit.
 */
export async function sleepQuery(sim: Sim, r: SimRequest, params: Record<string, unknown>): Promise<void> {
  const ms = clampInt(params['ms'], 0, 300_000);
  const memMb = clampInt(params['memMb'], 0, 16_777_216);
  const memLimit = memoryLimitMb(sim, r);
  if (memLimit !== undefined && memMb > memLimit) return sendMemoryAborted(sim, r, memMb, memLimit);
  const limit = queryTimeout(r);
  let closed = false;
  // A client that leaves ends the wait too: no timer outlives its request (nor keeps a closing process up).
  await new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, Math.min(ms, limit.ms));
    r.res.once('close', () => {
      closed = true;
      clearTimeout(timer);
      resolve();
    });
  });
  if (closed) return;
  if (ms > limit.ms) return sendQueryTimeout(sim, r, limit);
  sendQueryResult(sim, r, { results: [{ slept: ms }] });
}
