/**
 * Installed queries run in Detached Mode (`GSQL-ASYNC: true`) and what became of them (detached-queries.ts
 * serves them). Like RESTPP, nothing here asks who started a query. Finished queries are kept RETAIN_MS
 * (TigerGraph does not document how long; its docs say results are kept for a while), at most MAX_KEPT of them.
 */
export const RETAIN_MS = 10 * 60_000;
const MAX_KEPT = 10_000;

type Status = 'running' | 'success' | 'timeout' | 'aborted';

interface Detached {
  requestid: string;
  graph: string;
  url: string;
  startedAt: number;
  expiresAt: number;
  status: Status;
  endedAt?: number;
  results?: unknown[];
  timer?: NodeJS.Timeout;
}

export class DetachedQueries {
  private readonly byId = new Map<string, Detached>();
  private sequence = 0;

  constructor(private readonly now: () => number) {}

  /** Starts one: `runMs` of running (cut at its timeout), then `results`. Answers the id. */
  start(graph: string, url: string, runMs: number, timeoutMs: number, results: unknown[]): string {
    this.forgetOld();
    const startedAt = this.now();
    this.sequence += 1;
    const requestid = `${this.sequence * 65_536 + 1}.RESTPP_1_1.${startedAt}.N`;
    const entry: Detached = { requestid, graph, url, startedAt, expiresAt: startedAt + timeoutMs, status: 'running' };
    const finish = (): void => {
      entry.timer = undefined;
      if (entry.status !== 'running') return;
      entry.endedAt = this.now();
      if (runMs > timeoutMs) entry.status = 'timeout';
      else {
        entry.status = 'success';
        entry.results = results;
      }
    };
    entry.timer = setTimeout(finish, Math.min(runMs, timeoutMs));
    entry.timer.unref();
    this.byId.set(requestid, entry);
    return requestid;
  }

  status(id: string): object | undefined {
    const e = this.byId.get(id);
    if (e === undefined) return undefined;
    return {
      requestid: e.requestid,
      startTime: stamp(e.startedAt),
      expirationTime: stamp(e.expiresAt),
      url: e.url,
      elapsedTime: (e.endedAt ?? this.now()) - e.startedAt,
      status: e.status,
    };
  }

  running(graph: string | undefined): Detached[] {
    return [...this.byId.values()].filter((e) => e.status === 'running' && (graph === undefined || e.graph === graph));
  }

  result(id: string): unknown[] | undefined {
    const e = this.byId.get(id);
    return e?.status === 'success' ? e.results : undefined;
  }

  abort(id: string): Detached | undefined {
    const e = this.byId.get(id);
    if (e === undefined || e.status !== 'running') return undefined;
    clearTimeout(e.timer);
    e.status = 'aborted';
    e.endedAt = this.now();
    return e;
  }

  close(): void {
    for (const e of this.byId.values()) clearTimeout(e.timer);
    this.byId.clear();
  }

  private forgetOld(): void {
    const cutoff = this.now() - RETAIN_MS;
    for (const [id, e] of this.byId) if (e.endedAt !== undefined && e.endedAt < cutoff) this.byId.delete(id);
    // Oldest first (a Map keeps insertion order): a flood of starts cannot grow the simulator without bound.
    for (const id of this.byId.keys()) {
      if (this.byId.size < MAX_KEPT) break;
      const e = this.byId.get(id)!;
      clearTimeout(e.timer);
      this.byId.delete(id);
    }
  }
}

const stamp = (ms: number): string => new Date(ms).toISOString().replace('T', ' ').replace('Z', '');
