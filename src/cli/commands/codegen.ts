import { writeFile } from 'node:fs/promises';
import {
  generateQueryModule,
  isGraphName,
  readConfig,
  readFromDataServer,
  readThroughService,
} from '@tigergraph-bff/codegen';
import { CliError, ExitCode, usageError } from '../cli-error.js';
import { asCli, serviceUrl } from '../service-http.js';
import { loadSettings, type CommandContext, type CommandRunner } from '../context.js';
import { readSecret } from '../secret-input.js';

const str = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() ? v.trim() : undefined);

/** Through the service: log in with the secret, read the listing over the relay, log out whatever happened. */
async function throughService(ctx: CommandContext, base: string, graph: string, timeoutMs: number) {
  const { secret, source } = await readSecret(ctx.env, ctx.stdin, ctx.prompter);
  ctx.out.protect(secret);
  ctx.out.info(`service ${base}, secret from ${source}`);
  return asCli(() => readThroughService(base, graph, secret, timeoutMs, { protect: (v) => ctx.out.protect(v) }));
}

/** Straight from the data server with a token (the same listing the relay would have passed on). */
async function direct(ctx: CommandContext, restppUrl: string, graph: string, timeoutMs: number) {
  const token = str(ctx.values.token) ?? str(ctx.env.TG_TOKEN);
  if (!token) throw usageError('no way to read the listing: pass --service URL, or a token (--token or TG_TOKEN)');
  ctx.out.protect(token);
  ctx.out.info(`data server ${restppUrl}`);
  return asCli(() => readFromDataServer(restppUrl, graph, token, timeoutMs));
}

/** `tgbff codegen`: the service's CLI running @tigergraph-bff/codegen, with its settings and secret input. */
export const runCodegen: CommandRunner = async (ctx) => {
  const graph = str(ctx.values.graph);
  if (!graph || !isGraphName(graph))
    throw usageError(`--graph must name a graph (letters, digits, _), got '${graph ?? ''}'`);
  const service = str(ctx.values.service);
  const base = service === undefined ? undefined : serviceUrl(service);
  const { settings } = await loadSettings(ctx);
  const listing = base
    ? await throughService(ctx, base, graph, settings.timeoutMs)
    : await direct(ctx, settings.restppUrl, graph, settings.timeoutMs);
  const from = base ? `${base} (GET /api/endpoints/${graph}?dynamic=true)` : `GET /endpoints/${graph}?dynamic=true`;
  // The project's declared rows, as @tigergraph-bff/codegen's own bin reads them (./tgbff-codegen.json).
  const config = await asCli(() => readConfig('tgbff-codegen.json', true));
  const module = await asCli(async () => {
    try {
      return generateQueryModule(graph, listing, from, {
        results: config?.results,
        imports: config?.imports,
        async: ctx.values.async === true || config?.async === true,
      });
    } catch (err) {
      throw err instanceof TypeError ? usageError(`tgbff-codegen.json: ${err.message}`) : err;
    }
  });
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
