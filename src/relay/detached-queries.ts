import type { IncomingHttpHeaders } from 'node:http';
import { AppError } from '../errors.js';
import { CEILING_SLACK, type DetachedQueryStore } from '../store/detached-queries.js';
import { noResultAnswer, nothingAbortedAnswer, unknownStatusAnswer } from './detached-answers.js';
import type { RelayTarget } from './path-guard.js';

/**
 * Detached (GSQL-ASYNC) queries, owned by who started them (DETACHED_QUERIES). TigerGraph answers
 * `/query_status`, `/query_result`, `/abortquery` and `/showprocesslist` for any id to anyone with a token for
 * the graph; the relay records each id it hands back from a `GSQL-ASYNC: true` installed-query call against the
 * caller's principal and lets a caller name only their own ids:
 *
 * - status: foreign ids are answered as unknown (`unknown_requestid`); `requestid=all` (or none) is sent as
 *   `all` and the answer filtered to the caller's ids;
 * - result: a foreign id gets TigerGraph's answer for an unknown id, nothing goes upstream;
 * - abort: only the caller's ids are sent; `all` (or none) means all of the caller's; `url` (abort by endpoint
 *   pattern, whoever runs it) is refused;
 * - process lists: filtered to the caller's detached queries.
 *
 * The upstream target is rebuilt from the decoded parameters, so no spelling (case, escapes, doubled or
 * misspelt names) reaches TigerGraph as something the relay did not check.
 */
export interface DetachedSettings {
  /** How long an id stays the starter's (DETACHED_QUERY_TTL, in ms). */
  readonly ttlMs: number;
  /** Live ids one principal may have on record (DETACHED_QUERIES_PER_PRINCIPAL). */
  readonly cap: number;
}

/**
 * Who a relayed request acts for: its principal's keyed id (crypto/credential-id.ts), the unit ids are owned by
 * (DESIGN §7, "The person is the principal"): the TigerGraph user, the IdP subject, or a bare secret's credential.
 */
export type DetachedOwner = string;

/** The relay's part in one request (relay.ts). */
export interface DetachedPlan {
  /** Answered here, nothing goes upstream. */
  readonly answer?: { status: number; body: object };
  /** The upstream target (after the mount) instead of the browser's. */
  readonly target?: string;
  /** Send `GSQL-ASYNC: true` upstream. */
  readonly async?: boolean;
  /** The answer is read whole (at most FILTERED_ANSWER_MAX_BYTES) and this gives what the browser gets. */
  readonly after?: (status: number, body: Buffer) => Promise<Buffer>;
}

export interface DetachedQueries {
  /** Null when the request is none of these (the relay goes on as without the feature). */
  plan(
    method: string,
    target: RelayTarget,
    headers: IncomingHttpHeaders,
    owner: DetachedOwner,
  ): Promise<DetachedPlan | null>;
}

/** Status answers and process lists are short; a longer one is refused rather than held. */
export const FILTERED_ANSWER_MAX_BYTES = 4 * 1024 * 1024;
/** TigerGraph's ids look like `16842763.RESTPP_1_1.1561401340785.N`; a longer one was never handed out. */
export const MAX_ID_CHARS = 200;
/** Ids one request may name. */
export const MAX_IDS = 100;

const GUARDED = new Set(['query_status', 'query_result', 'abortquery', 'showprocesslist', 'showprocesslistall']);
const PARAMS: Readonly<Record<string, readonly string[]>> = {
  query_status: ['requestid', 'graph_name'],
  query_result: ['requestid', 'graph_name'],
  abortquery: ['requestid', 'url'],
  showprocesslist: [],
  showprocesslistall: [],
};

export function createDetachedQueries(deps: {
  store: DetachedQueryStore;
  settings: DetachedSettings;
  now?: () => number;
  /** tgbff_detached_queries_total. */
  count?: (event: 'started' | 'refused' | 'foreign', n?: number) => void;
}): DetachedQueries {
  const { store, settings } = deps;
  const now = deps.now ?? Date.now;
  const count = deps.count ?? (() => undefined);

  /** Keeps the answer's `results` entries whose `requestid` is the caller's. */
  const ownResults =
    (owner: DetachedOwner, foreign: readonly string[] = []) =>
    async (_status: number, body: Buffer): Promise<Buffer> => {
      const doc = parseObject(body);
      const results = doc['results'];
      if (Array.isArray(results)) {
        const ids = results.map((r) => requestIdOf(r)).filter((id): id is string => id !== undefined);
        const mine = await store.owned(owner, ids, now());
        doc['results'] = results.filter((r) => {
          const id = requestIdOf(r);
          return id !== undefined && mine.has(id);
        });
      }
      if (foreign.length > 0) {
        const known = Array.isArray(doc['unknown_requestid']) ? (doc['unknown_requestid'] as unknown[]) : [];
        doc['unknown_requestid'] = [...known, ...foreign];
      }
      return Buffer.from(JSON.stringify(doc));
    };

  const start = async (owner: DetachedOwner): Promise<DetachedPlan> => {
    if ((await store.count(owner, now())) >= settings.cap) {
      count('refused');
      throw new AppError(
        'quota_exceeded',
        `This user has ${settings.cap} detached queries on record (DETACHED_QUERIES_PER_PRINCIPAL); wait until older ones expire`,
      );
    }
    return {
      async: true,
      async after(status, body) {
        const id = status === 200 ? startedId(body) : undefined;
        if (id !== undefined) {
          await store.record(owner, id, now(), {
            ttlMs: settings.ttlMs,
            ceiling: settings.cap + CEILING_SLACK,
          });
          count('started');
        }
        return body;
      },
    };
  };

  return {
    async plan(method, target, headers, owner) {
      const segments = target.path.split('/');
      const first = (segments[1] ?? '').toLowerCase();
      if (first === 'query') {
        const detached = asyncHeader(headers['gsql-async']);
        return detached && segments.length === 4 && segments[3] !== '' ? start(owner) : null;
      }
      if (!GUARDED.has(first)) return null;
      if (method !== 'GET')
        throw new AppError('method_not_allowed', `/${first} is relayed for GET only (detached queries are owned)`);
      const graph = segments[2] === undefined || segments[2] === '' ? undefined : segments[2];
      const base = `/${first}${graph === undefined ? '' : `/${encodeURIComponent(graph)}`}`;
      const params = parseParams(target.target, first);
      const requested = unique(params.get('requestid') ?? []);
      const all = requested.length === 0 || requested.some((id) => id.toLowerCase() === 'all');
      if (first === 'showprocesslist' || first === 'showprocesslistall')
        return { target: base, after: ownResults(owner) };
      if (first === 'abortquery') {
        if (params.has('url'))
          throw new AppError('invalid_request', 'url: abort by endpoint pattern is not relayed; name your requestid');
        const ids = all ? await store.list(owner, now()) : [...(await store.owned(owner, nameable(requested), now()))];
        if (ids.length === 0) return { answer: { status: 200, body: nothingAbortedAnswer() } };
        return { target: `${base}?${query([['requestid', ids]])}` };
      }
      const graphName = params.get('graph_name');
      if (graphName !== undefined && unique(graphName).length > 1)
        throw new AppError('invalid_request', 'graph_name: name one graph');
      const named: Array<[string, readonly string[]]> =
        graphName === undefined ? [] : [['graph_name', unique(graphName)]];
      if (first === 'query_result') {
        if (requested.length !== 1 || all) throw new AppError('invalid_request', 'requestid: name exactly one query');
        const id = requested[0]!;
        const mine = await store.owned(owner, nameable([id]), now());
        if (!mine.has(id)) {
          count('foreign');
          return { answer: { status: 200, body: noResultAnswer(id) } };
        }
        return { target: `${base}?${query([...named, ['requestid', [id]]])}` };
      }
      // query_status
      if (all) return { target: `${base}?${query([...named, ['requestid', ['all']]])}`, after: ownResults(owner) };
      const mine = await store.owned(owner, nameable(requested), now());
      const foreign = requested.filter((id) => !mine.has(id));
      if (foreign.length > 0) count('foreign', foreign.length);
      if (mine.size === 0) return { answer: { status: 200, body: unknownStatusAnswer(foreign) } };
      return {
        target: `${base}?${query([...named, ['requestid', [...mine]]])}`,
        ...(foreign.length > 0 && { after: ownResults(owner, foreign) }),
      };
    },
  };
}

/** `GSQL-ASYNC`: true (any case) detaches, false or absent does not, anything else (two values too) is 400. */
function asyncHeader(raw: string | string[] | undefined): boolean {
  if (raw === undefined) return false;
  const text = typeof raw === 'string' ? raw.trim().toLowerCase() : '';
  if (text === 'true') return true;
  if (text === 'false') return false;
  throw new AppError('invalid_request', 'GSQL-ASYNC: must be true or false');
}

function decodeParam(raw: string): string {
  try {
    return decodeURIComponent(raw.replace(/\+/g, ' '));
  } catch {
    throw new AppError('invalid_request', 'The query string has a malformed escape');
  }
}

/** The decoded parameters by lower-case name; a name the endpoint does not read is 400 naming it. */
function parseParams(target: string, endpoint: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  const mark = target.indexOf('?');
  if (mark < 0) return out;
  const allowed = PARAMS[endpoint]!;
  let count = 0;
  for (const part of target.slice(mark + 1).split('&')) {
    if (part === '') continue;
    const eq = part.indexOf('=');
    const name = decodeParam(eq < 0 ? part : part.slice(0, eq))
      .trim()
      .toLowerCase();
    const value = eq < 0 ? '' : decodeParam(part.slice(eq + 1)).trim();
    if (!allowed.includes(name)) {
      const shown = name.length > 40 ? `${name.slice(0, 40)}…` : name;
      throw new AppError('invalid_request', `${shown}: not a parameter of /${endpoint} the relay passes`);
    }
    if (++count > MAX_IDS) throw new AppError('invalid_request', `At most ${MAX_IDS} parameters`);
    const values = out.get(name) ?? [];
    values.push(value);
    out.set(name, values);
  }
  return out;
}

const unique = (values: readonly string[]): string[] => [...new Set(values.filter((v) => v !== ''))];
/** Ids too long to be TigerGraph's are nobody's: not even asked about. */
const nameable = (ids: readonly string[]): string[] => ids.filter((id) => id.length <= MAX_ID_CHARS);

function query(params: ReadonlyArray<readonly [string, readonly string[]]>): string {
  return params.flatMap(([name, values]) => values.map((v) => `${name}=${encodeURIComponent(v)}`)).join('&');
}

function parseObject(body: Buffer): Record<string, unknown> {
  let doc: unknown;
  try {
    doc = JSON.parse(body.toString('utf8'));
  } catch {
    doc = undefined;
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc))
    throw new AppError('upstream_error', 'The data server answered something other than a JSON object');
  return doc as Record<string, unknown>;
}

function requestIdOf(entry: unknown): string | undefined {
  if (typeof entry !== 'object' || entry === null) return undefined;
  const id = (entry as Record<string, unknown>)['requestid'];
  return typeof id === 'string' ? id : undefined;
}

/** The id of a detached start: `request_id` at the top (GSQL docs, "Detached mode"), when it can be one. */
function startedId(body: Buffer): string | undefined {
  let doc: unknown;
  try {
    doc = JSON.parse(body.toString('utf8'));
  } catch {
    return undefined;
  }
  if (typeof doc !== 'object' || doc === null) return undefined;
  const id = (doc as Record<string, unknown>)['request_id'];
  return typeof id === 'string' && id !== '' && id.length <= MAX_ID_CHARS ? id : undefined;
}
