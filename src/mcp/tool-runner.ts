import { ShortCache } from '../cache/short-cache.js';
import { isAppError } from '../errors.js';
import type { Audit } from '../observability/audit.js';
import type { UserQuota } from '../quota/user-quota.js';
import { admitAudited } from '../quota/admit-audited.js';
import type { ForwardedFor } from '../relay/header-policy.js';
import type { Relay } from '../relay/relay.js';
import { internalRequest, InternalResponse, type InternalAnswer } from './internal-exchange.js';
import type { PersonAccess } from './person-access.js';
import { toolsOf, vertexLookupTool, type EndpointListing, type QueryTool } from './tool-catalog.js';
import { guardRelayRequest } from '../relay/path-guard.js';
import type { AllowRule } from '../relay/allowlist.js';

/** One request's view: who, from where, under which request id. */
export interface ToolCaller {
  access: PersonAccess;
  /** The keyed id of the IdP subject: the unit of quotas and concurrency, as for the person's browser sessions. */
  principal: string;
  requestId: string;
  forwarded: ForwardedFor;
}

/** What a tool call answers: TigerGraph's JSON, or an error the agent can read (never a token). */
export type ToolOutcome = { ok: true; text: string } | { ok: false; code: string; message: string };

export interface ToolRunnerDeps {
  relay: Relay;
  /** The /api lane's own per-credential limit: an agent and the person's browser share it. */
  credentialConcurrency: { enter(key: string): void; leave(key: string): void };
  quota?: UserQuota;
  audit?: Audit;
  /** RELAY_ALLOW, parsed: a built-in is a tool only where it opens it (the relay checks each call again). */
  allow: readonly AllowRule[];
  /** How long one catalog (rule or person, graph) is reused; TigerGraph is asked again after it. */
  catalogTtlMs?: number;
}

const API = '/api';

/**
 * Tool listing and tool calls, each an internal request through the relay (internal-exchange.ts), under the
 * same limits as the /api lane: the per-credential concurrency cap, the quota (QUOTA_*), then the relay's
 * allowlist, guardrails, answer cap and token replay. A refusal (quota, guardrail, allowlist, TigerGraph's
 * own error) is a tool result marked as an error, with the service's code and message.
 */
export function createToolRunner(deps: ToolRunnerDeps) {
  const catalogs = new ShortCache<QueryTool[]>(deps.catalogTtlMs ?? 30_000, 10_000);

  async function exchange(caller: ToolCaller, graph: string, method: 'GET' | 'POST', url: string, body: Buffer | null) {
    const { credentialConcurrency } = deps;
    credentialConcurrency.enter(caller.principal);
    let endQuota: (() => void) | undefined;
    try {
      if (deps.quota) {
        endQuota = await admitAudited(deps.quota, deps.audit, caller.principal, url);
      }
      const res = new InternalResponse();
      await deps.relay.handle(internalRequest(method, body), res.asServerResponse(), {
        auth: caller.access.auth(graph),
        requestId: caller.requestId,
        url,
        forwarded: caller.forwarded,
      });
      return await res.done;
    } finally {
      endQuota?.();
      credentialConcurrency.leave(caller.principal);
    }
  }

  async function catalog(caller: ToolCaller): Promise<QueryTool[]> {
    const all: QueryTool[] = [];
    for (const graph of caller.access.graphs) {
      const key = `${caller.access.catalogKey}\n${graph}`;
      let tools = catalogs.get(key);
      if (tools === undefined) {
        const answer = await exchange(caller, graph, 'GET', `${API}/endpoints/${graph}?dynamic=true`, null).catch(
          (err: unknown) => {
            // A graph TigerGraph does not open to them (or an outage) contributes no tools; it is not cached.
            if (isAppError(err) && err.status < 500) return null;
            throw err;
          },
        );
        const listing = answer === null ? null : listingOf(answer);
        if (listing === null) continue;
        tools = toolsOf(graph, listing);
        if (opens(deps.allow, `${API}/graph/${graph}/vertices/t/i`)) tools.push(vertexLookupTool(graph));
        catalogs.set(key, tools);
      }
      all.push(...tools);
    }
    return all;
  }

  async function call(caller: ToolCaller, name: string, args: Record<string, unknown>): Promise<ToolOutcome> {
    const tool = (await catalog(caller)).find((t) => t.name === name);
    if (tool === undefined)
      return {
        ok: false,
        code: 'not_found',
        message: `No tool named ${JSON.stringify(name.slice(0, 128))} is open to you`,
      };
    const path = `${API}/query/${tool.graph}/${tool.query}`;
    let answer: InternalAnswer;
    try {
      answer =
        tool.query === undefined
          ? await exchange(caller, tool.graph, 'GET', vertexPath(tool.graph, args), null)
          : tool.method === 'POST'
            ? await exchange(caller, tool.graph, 'POST', path, Buffer.from(JSON.stringify(args)))
            : await exchange(caller, tool.graph, 'GET', `${path}${queryString(args)}`, null);
    } catch (err) {
      if (!isAppError(err)) throw err;
      return { ok: false, code: err.code, message: err.expose ? err.message : 'The service could not run the tool' };
    }
    const text = answer.body.toString('utf8');
    if (answer.status >= 400) return { ok: false, code: `upstream_${answer.status}`, message: text.slice(0, 4096) };
    return { ok: true, text };
  }

  return { catalog, call };
}

export type ToolRunner = ReturnType<typeof createToolRunner>;

const opens = (allow: readonly AllowRule[], url: string): boolean => {
  try {
    guardRelayRequest(allow, 'GET', url, API);
    return true;
  } catch {
    return false;
  }
};

/** The built-in's path; a type or id the path guard refuses (encoded separators) is refused by the relay. */
const vertexPath = (graph: string, args: Record<string, unknown>): string =>
  `${API}/graph/${graph}/vertices/${encodeURIComponent(String(args.type ?? ''))}/${encodeURIComponent(String(args.id ?? ''))}`;

function listingOf(answer: InternalAnswer): EndpointListing | null {
  if (answer.status !== 200) return null;
  try {
    const body = JSON.parse(answer.body.toString('utf8')) as unknown;
    return body !== null && typeof body === 'object' && !Array.isArray(body) ? (body as EndpointListing) : null;
  } catch {
    return null;
  }
}

/** GET arguments: `k=v`, a list as `k=v1&k=v2`, a vertex of any type as `k=id&k.type=Type` (RESTPP). */
function queryString(args: Record<string, unknown>): string {
  const q = new URLSearchParams();
  const one = (k: string, v: unknown) => {
    if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
      const { id, type } = v as { id?: unknown; type?: unknown };
      q.append(k, String(id));
      q.append(`${k}.type`, String(type));
    } else q.append(k, String(v));
  };
  for (const [k, v] of Object.entries(args)) {
    if (Array.isArray(v)) for (const item of v as unknown[]) one(k, item);
    else one(k, v);
  }
  const s = q.toString();
  return s === '' ? '' : `?${s}`;
}
