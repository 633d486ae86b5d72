import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import { Counter, Gauge, type Registry } from 'prom-client';
import { AppError } from '../errors.js';
import { installedQueryKey, type QueryLimits } from './query-guardrails.js';
import { declaredOverCap } from './response-cap.js';
import { RelayCancel } from './relay-cancel.js';
import type { UpstreamAnswer } from './upstream-answer.js';
import { classifyUpstreamError, upstreamAppError } from './upstream-errors.js';

/**
 * One TigerGraph call for identical concurrent reads of one principal (RELAY_COALESCE, docs/quotas.md).
 *
 * A read (a GET, or a POST to an installed query the policy file marks `readOnly`) whose key matches a call in
 * flight waits for that call's answer instead of making its own. The key is a SHA-256 of everything that
 * could make TigerGraph answer differently: who asks (the principal and the scope of the token the call is
 * made with: login kind, graph, credential-map rule), the method, the upstream path and its query string
 * (parameters in a canonical order, spelling kept), the sizing headers after capping, every browser header
 * the relay forwards, and the body. What is the relay's own per request (X-Request-Id, X-Forwarded-*,
 * traceparent, the token) is not in it: the shared call carries the first request's.
 *
 * The answer is read whole into memory (at most RELAY_MAX_RESPONSE_BYTES; all flights together at most
 * RELAY_COALESCE_MAX_BYTES) and given to every waiter, each through its own response (its own request id,
 * security headers and the relay's header allowlist). What is never shared: an outcome that belongs to the
 * first request's session: its token could not be had, or TigerGraph refused it (then even the replay's
 * answer is the first request's alone); the others then make their own calls, each with its own token.
 * A waiter that leaves leaves alone; when the last one leaves, the upstream call is aborted.
 */
export interface Coalescer {
  /** Whether a request of `method` to `path` (decoded, after the mount) may share a call. */
  eligible(method: string, path: string): boolean;
  keyOf(parts: KeyParts): string;
  /**
   * The answer of the call in flight under `key`, or of one started now with `lead`. `own` is the request's
   * own cancel (client gone, deadline); `alone` makes the request's own call (the flight is full, or its
   * outcome was the first request's only).
   */
  share(key: string, own: RelayCancel, lead: LeadExchange, alone: () => Promise<Exchanged>): Promise<Exchanged>;
  /** Flights in flight (for tests and the gauge). */
  readonly inFlight: number;
}

export interface Exchanged {
  answer: UpstreamAnswer;
  token: string;
}

/** Set by the exchange when its outcome is its own session's (token steps failed, a token refused). */
export interface ExchangeNote {
  ownOnly: boolean;
}

/** One upstream exchange with the first request's token, aborted by `cancel` (everyone left). */
export type LeadExchange = (cancel: RelayCancel, note: ExchangeNote) => Promise<Exchanged>;

export interface KeyParts {
  /** The principal and the token's scope, from the /api lane. */
  shareAs: string;
  method: string;
  /** The upstream path and raw query string. */
  path: string;
  limits: QueryLimits | null;
  /** The browser headers the relay forwards, flat [name, value, …]. */
  forwarded: readonly string[];
  body: Buffer | null;
}

export interface CoalescingOptions {
  /** RELAY_COALESCE_WAITERS: requests sharing one call, the first included; more make their own. */
  maxWaiters: number;
  /** RELAY_COALESCE_MAX_BYTES: answer bytes held in memory by all flights together. */
  maxBufferedBytes: number;
  /** RELAY_MAX_RESPONSE_BYTES: a longer answer is 502 response_too_large for every waiter. */
  maxResponseBytes?: number;
  /** Installed queries (`graph/query`) whose POSTs are reads (policy file `readOnly: true`). */
  readOnlyQueries?: ReadonlySet<string>;
  registry?: Registry;
}

type Outcome =
  | { kind: 'shared'; ex: Exchanged }
  | { kind: 'failed'; err: unknown }
  | { kind: 'alone' }
  | { kind: 'handed'; ex: Exchanged };

interface Waiter {
  settle(outcome: Outcome): void;
}

interface Flight {
  readonly key: string;
  readonly cancel: RelayCancel;
  readonly waiters: Set<Waiter>;
  readonly first: Waiter;
  reserved: number;
  done: boolean;
}

export function createCoalescer(opts: CoalescingOptions): Coalescer {
  const flights = new Map<string, Flight>();
  const readOnly = opts.readOnlyQueries ?? new Set<string>();
  const counted = opts.registry
    ? new Counter({
        name: 'tgbff_relay_coalesced_total',
        help: 'Relayed reads by how coalescing served them: shared (the answer of another request of the same principal), led (made the call others shared), alone (had to make its own: the flight was full or its outcome was not shareable)',
        labelNames: ['result'],
        registers: [opts.registry],
      })
    : undefined;
  for (const result of ['shared', 'led', 'alone']) counted?.inc({ result }, 0);
  if (opts.registry)
    new Gauge({
      name: 'tgbff_relay_coalesce_waiting',
      help: 'Relayed reads waiting on a shared TigerGraph call right now, the ones that made it included',
      registers: [opts.registry],
      collect() {
        let n = 0;
        for (const f of flights.values()) n += f.waiters.size;
        this.set(n);
      },
    });
  let buffered = 0;

  const end = (flight: Flight, outcome: (w: Waiter) => Outcome): void => {
    if (flight.done) return;
    flight.done = true;
    if (flights.get(flight.key) === flight) flights.delete(flight.key);
    buffered -= flight.reserved;
    flight.reserved = 0;
    for (const w of [...flight.waiters]) w.settle(outcome(w));
  };

  /** The first request's own outcome: it gets `mine` (if still there), everyone else makes their own call. */
  const endOwn = (flight: Flight, mine: Outcome, ex?: Exchanged): void => {
    if (!flight.waiters.has(flight.first)) ex?.answer.rest?.destroy();
    end(flight, (w) => (w === flight.first ? mine : { kind: 'alone' }));
  };

  const fly = async (flight: Flight, lead: LeadExchange): Promise<void> => {
    const note: ExchangeNote = { ownOnly: false };
    let ex: Exchanged;
    try {
      ex = await lead(flight.cancel, note);
    } catch (err) {
      if (note.ownOnly) return endOwn(flight, { kind: 'failed', err });
      return end(flight, () => ({ kind: 'failed', err }));
    }
    const { answer } = ex;
    if (flight.cancel.aborted || flight.done) {
      answer.rest?.destroy();
      return end(flight, () => ({ kind: 'alone' }));
    }
    if (note.ownOnly) return endOwn(flight, { kind: 'handed', ex }, ex);
    const max = opts.maxResponseBytes;
    if (answer.rest === null || (max !== undefined && declaredOverCap(answer.headers, max) !== null)) {
      // Whole already (a short 401/403), or refused whole by each waiter's relay (declared over the cap).
      answer.rest?.on('error', () => undefined).destroy();
      return end(flight, () => ({ kind: 'shared', ex: { answer: { ...answer, rest: null }, token: ex.token } }));
    }
    const read = await readWithin(answer.rest, answer.head, flight, max);
    if (read.kind === 'gone') return end(flight, () => ({ kind: 'alone' }));
    if (read.kind === 'failed') return end(flight, () => ({ kind: 'failed', err: read.err }));
    if (read.kind === 'overflow') {
      // Memory for shared answers is spent: the first waiter still here streams the rest, the others go alone.
      const handed: Exchanged = { answer: { ...answer, head: read.head, rest: answer.rest }, token: ex.token };
      const taker = flight.waiters.has(flight.first) ? flight.first : flight.waiters.values().next().value;
      if (taker === undefined) answer.rest.destroy();
      return end(flight, (w) => (w === taker ? { kind: 'handed', ex: handed } : { kind: 'alone' }));
    }
    const whole: UpstreamAnswer = { ...answer, head: read.head, rest: null };
    end(flight, () => ({ kind: 'shared', ex: { answer: whole, token: ex.token } }));
  };

  /** Reads the rest of the answer into memory, within the answer cap and the memory shared by all flights. */
  const readWithin = (
    body: Readable,
    head: Buffer | null,
    flight: Flight,
    max: number | undefined,
  ): Promise<{ kind: 'whole' | 'overflow'; head: Buffer } | { kind: 'failed'; err: unknown } | { kind: 'gone' }> =>
    new Promise((resolve) => {
      const chunks: Buffer[] = head === null ? [] : [head];
      let size = head?.length ?? 0;
      const finish = (out: Parameters<typeof resolve>[0]): void => {
        body.off('data', onData).off('end', onEnd).off('error', onError).off('close', onClose);
        flight.cancel.off('abort', onAbort);
        resolve(out);
      };
      const onData = (chunk: Buffer): void => {
        if (max !== undefined && size + chunk.length > max) {
          body.on('error', () => undefined).destroy();
          return finish({
            kind: 'failed',
            err: new AppError(
              'response_too_large',
              `The data server's answer is larger than this service relays (${max} bytes); ask for less`,
            ),
          });
        }
        if (buffered + chunk.length > opts.maxBufferedBytes) {
          body.pause();
          chunks.push(chunk);
          return finish({ kind: 'overflow', head: Buffer.concat(chunks) });
        }
        buffered += chunk.length;
        flight.reserved += chunk.length;
        chunks.push(chunk);
        size += chunk.length;
      };
      const onEnd = (): void => finish({ kind: 'whole', head: Buffer.concat(chunks, size) });
      const onError = (err: Error): void =>
        finish(
          flight.cancel.aborted
            ? { kind: 'gone' }
            : { kind: 'failed', err: upstreamAppError(classifyUpstreamError(err), err) },
        );
      const onClose = (): void => {
        if (!body.readableEnded) onError(Object.assign(new Error('answer closed early'), { code: 'ECONNRESET' }));
      };
      const onAbort = (): void => {
        body.on('error', () => undefined).destroy();
        finish({ kind: 'gone' });
      };
      flight.cancel.once('abort', onAbort);
      body.on('data', onData).on('end', onEnd).on('error', onError).on('close', onClose);
    });

  return {
    get inFlight() {
      return flights.size;
    },

    eligible(method, path) {
      if (method === 'GET') return true;
      if (method !== 'POST' || readOnly.size === 0) return false;
      const key = installedQueryKey(path);
      return key !== null && readOnly.has(key);
    },

    keyOf(p) {
      const h = createHash('sha256');
      const add = (s: string): void => {
        h.update(`${s.length}:`).update(s);
      };
      add(p.shareAs);
      add(p.method);
      add(canonicalTarget(p.path));
      const l = p.limits;
      add(l === null ? '' : `${l.timeout} ${l.responseLimit} ${l.threads ?? ''} ${l.memoryMb ?? ''}`);
      const pairs: string[] = [];
      for (let i = 0; i < p.forwarded.length; i += 2) pairs.push(`${p.forwarded[i]}\n${p.forwarded[i + 1]}`);
      // Stable: repeated headers of one name keep their order.
      pairs.sort((a, b) => compareNames(a, b));
      add(pairs.join('\n\n'));
      add(p.body === null ? '-' : `${p.body.length}`);
      if (p.body !== null) h.update(p.body);
      return h.digest('base64');
    },

    share(key, own, lead, alone) {
      // Gone before it could join (while its body was read): nothing to wait for, nobody to leave.
      if (own.aborted) return Promise.reject(abandoned());
      const found = flights.get(key);
      if (found !== undefined && found.waiters.size >= opts.maxWaiters) {
        counted?.inc({ result: 'alone' });
        return alone();
      }
      let resolve!: (outcome: Outcome) => void;
      const settledWith = new Promise<Outcome>((r) => (resolve = r));
      let settled = false;
      const waiter: Waiter = {
        settle: (outcome) => {
          if (settled) return;
          settled = true;
          own.off('abort', leave);
          resolve(outcome);
        },
      };
      const flight: Flight = found ?? {
        key,
        cancel: new RelayCancel(),
        waiters: new Set(),
        first: waiter,
        reserved: 0,
        done: false,
      };
      const leave = (): void => {
        flight.waiters.delete(waiter);
        // The last one gone: nobody wants the answer, so TigerGraph's call ends.
        if (flight.waiters.size === 0 && !flight.done) {
          flight.done = true;
          if (flights.get(key) === flight) flights.delete(key);
          // Stops the exchange and the answer's read at once (the abort is synchronous), so no byte is
          // held after this: its reservation goes back now (fly's own end() returns early for a done flight).
          flight.cancel.abort('client');
          buffered -= flight.reserved;
          flight.reserved = 0;
        }
        // Nothing to answer: the relay's own cancel has already failed this request.
        waiter.settle({ kind: 'alone' });
      };
      own.once('abort', leave);
      flight.waiters.add(waiter);
      if (found === undefined) {
        flights.set(key, flight);
        void fly(flight, lead).catch((err: unknown) => end(flight, () => ({ kind: 'failed', err })));
      }
      return settledWith.then((outcome) => {
        switch (outcome.kind) {
          case 'shared':
            counted?.inc({ result: waiter === flight.first ? 'led' : 'shared' });
            return outcome.ex;
          case 'handed':
            counted?.inc({ result: 'led' });
            return outcome.ex;
          case 'failed':
            throw outcome.err;
          case 'alone':
            if (own.aborted) throw abandoned();
            counted?.inc({ result: 'alone' });
            return alone();
        }
      });
    },
  };
}

const abandoned = (): Error => Object.assign(new Error('relayed request cancelled'), { code: 'UND_ERR_ABORTED' });

const compareNames = (a: string, b: string): number => {
  const na = a.slice(0, a.indexOf('\n'));
  const nb = b.slice(0, b.indexOf('\n'));
  return na < nb ? -1 : na > nb ? 1 : 0;
};

/**
 * The target with its query parameters in order of their raw names (stable, so repeated parameters keep
 * theirs): `?b=2&a=1` and `?a=1&b=2` ask TigerGraph the same. Spellings are kept as sent (`%61` is not `a`
 * here): at worst two spellings of one read make two calls, never one answer for two different reads.
 */
export function canonicalTarget(target: string): string {
  const mark = target.indexOf('?');
  if (mark < 0) return target;
  const params = target
    .slice(mark + 1)
    .split('&')
    .filter((p) => p !== '');
  const name = (p: string): string => {
    const eq = p.indexOf('=');
    return eq < 0 ? p : p.slice(0, eq);
  };
  params.sort((a, b) => {
    const na = name(a);
    const nb = name(b);
    return na < nb ? -1 : na > nb ? 1 : 0;
  });
  return `${target.slice(0, mark)}?${params.join('&')}`;
}
