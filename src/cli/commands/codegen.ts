import { writeFile } from 'node:fs/promises';
import { isName } from '@tigergraph-bff/client';
import { generateQueryModule, type EndpointListing } from '../../codegen/query-module.js';
import { CliError, ExitCode, usageError } from '../cli-error.js';
import { loadSettings, type CommandContext, type CommandRunner } from '../context.js';
import { readSecret } from '../secret-input.js';
import { call, readJson, serviceUrl } from '../service-http.js';

const CSRF = { 'X-Requested-With': 'XMLHttpRequest' };

const str = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() ? v.trim() : undefined);

/**
 * A refused call as a CliError. The graph's refusal exits 7, as the help promises: the service's
 * `graph_not_found` code at login, or the data server's answer quoting the graph (`Graph 'x' does not exist.`,
 * the rule the client library reads token refusals by).
 */
function refusal(res: Response, body: unknown, what: string, graph: string): CliError {
  const error = (body as { error?: unknown; message?: unknown } | undefined)?.error;
  const message =
    typeof error === 'object' && error !== null && typeof (error as { message?: unknown }).message === 'string'
      ? (error as { message: string }).message
      : typeof (body as { message?: unknown })?.message === 'string'
        ? (body as { message: string }).message
        : `status ${res.status}`;
  const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
  if (code === 'graph_not_found' || (res.status === 400 && message.includes(`'${graph}'`)))
    return new CliError(ExitCode.graphNotFound, 'graph_not_found', `${what} refused: ${message}`);
  const exit = res.status === 401 || res.status === 403 ? ExitCode.badCredentials : ExitCode.other;
  return new CliError(exit, 'refused', `${what} refused: ${message}`);
}

/** Through the service: log in with the secret, read the listing over the relay, log out whatever happened. */
async function throughService(ctx: CommandContext, base: string, graph: string, timeoutMs: number): Promise<unknown> {
  const { secret, source } = await readSecret(ctx.env, ctx.stdin, ctx.prompter);
  ctx.out.protect(secret);
  ctx.out.info(`service ${base}, secret from ${source}`);
  const what = `the service at ${base}`;
  const login = await call(
    `${base}/auth/login`,
    {
      method: 'POST',
      headers: { ...CSRF, 'Content-Type': 'application/json' },
      body: JSON.stringify({ secret, graph }),
    },
    timeoutMs,
    what,
  );
  const loginBody = await readJson(login, what);
  if (login.status !== 200) throw refusal(login, loginBody, `${what} (login)`, graph);
  // The session cookie, whatever its name (__Host-tgbff, or tgbff with COOKIE_SECURE=false).
  const cookie = login.headers
    .getSetCookie()
    .map((line) => line.split(';')[0]!)
    .join('; ');
  ctx.out.protect(cookie);
  const headers = { ...CSRF, Cookie: cookie };
  try {
    const res = await call(
      `${base}/api/endpoints/${encodeURIComponent(graph)}?dynamic=true`,
      { headers },
      timeoutMs,
      what,
    );
    const body = await readJson(res, what);
    if (res.status !== 200) throw refusal(res, body, what, graph);
    return body;
  } finally {
    await call(`${base}/auth/logout`, { method: 'POST', headers }, timeoutMs, what)
      .then((res) => res.body?.cancel())
      .catch(() => undefined);
  }
}

/** Straight from the data server with a token (the same listing the relay would have passed on). */
async function direct(ctx: CommandContext, restppUrl: string, graph: string, timeoutMs: number): Promise<unknown> {
  const token = str(ctx.values.token) ?? str(ctx.env.TG_TOKEN);
  if (!token) throw usageError('no way to read the listing: pass --service URL, or a token (--token or TG_TOKEN)');
  ctx.out.protect(token);
  ctx.out.info(`data server ${restppUrl}`);
  const what = `the data server at ${restppUrl}`;
  const res = await call(
    `${restppUrl}/endpoints/${encodeURIComponent(graph)}?dynamic=true`,
    { headers: { Authorization: `Bearer ${token}` } },
    timeoutMs,
    what,
  );
  const body = await readJson(res, what);
  if (res.status !== 200 || (body as { error?: unknown }).error === true) throw refusal(res, body, what, graph);
  return body;
}

export const runCodegen: CommandRunner = async (ctx) => {
  const graph = str(ctx.values.graph);
  if (!graph || !isName(graph))
    throw usageError(`--graph must name a graph (letters, digits, _), got '${graph ?? ''}'`);
  const service = str(ctx.values.service);
  const base = service === undefined ? undefined : serviceUrl(service);
  const { settings } = await loadSettings(ctx);
  const listing = base
    ? await throughService(ctx, base, graph, settings.timeoutMs)
    : await direct(ctx, settings.restppUrl, graph, settings.timeoutMs);
  if (typeof listing !== 'object' || listing === null || Array.isArray(listing))
    throw new CliError(ExitCode.other, 'unexpected_response', 'the endpoint listing is not a JSON object');
  const from = base ? `${base} (GET /api/endpoints/${graph}?dynamic=true)` : `GET /endpoints/${graph}?dynamic=true`;
  const module = generateQueryModule(graph, listing as EndpointListing, from);
  for (const reason of module.skipped) ctx.out.info(`skipped ${reason}`);
  if (module.queries.length === 0)
    throw new CliError(ExitCode.graphNotFound, 'no_queries', `graph ${graph} lists no installed queries`);
  const out = str(ctx.values.out);
  if (out) await writeFile(out, module.text);
  else ctx.io.out(module.text);
  const summary = module.queries.map((q) => `${q.name} (${q.method})`).join(', ');
  if (out) ctx.out.result({ file: out, queries: module.queries, skipped: module.skipped }, `wrote ${out}: ${summary}`);
  return ExitCode.ok;
};
