import {
  createSecretApi,
  maskSecret,
  TigerGraphError,
  type AdminCredentials,
  type SecretRecord,
} from '@tigergraph-bff/client';
import { CliError, ExitCode } from '../cli-error.js';
import { loadSettings, type CommandContext, type CommandRunner } from '../context.js';
import { resolveCredentials } from '../credentials.js';
import { explain, type Situation } from '../explain.js';
import { table } from '../output.js';

/** Resolves settings and credentials, runs `work` against the secret API, and closes it on every path. */
async function withSecretApi<T>(
  ctx: CommandContext,
  work: (api: ReturnType<typeof createSecretApi>, creds: AdminCredentials, graph: string) => Promise<T>,
): Promise<T> {
  const { settings, config } = await loadSettings(ctx);
  const user = typeof ctx.values.user === 'string' ? ctx.values.user : undefined;
  ctx.out.info(`admin server ${settings.gsqlUrl} (from ${settings.from.gsqlUrl})`);
  const resolved = await resolveCredentials({
    user,
    env: ctx.env,
    homeDir: ctx.homeDir,
    server: settings.gsqlUrl,
    host: settings.host,
    netrcDefault: ctx.values['netrc-default'] === true || ctx.env.TGBFF_NETRC_DEFAULT === '1',
    config,
    prompter: ctx.prompter,
  });
  ctx.out.protect(resolved.creds.password);
  for (const passed of resolved.skipped) ctx.out.info(`not used: ${passed}`);
  ctx.out.info(`credentials: user '${resolved.creds.username}' from ${resolved.source}`);
  const where: Situation = {
    server: 'admin',
    url: settings.gsqlUrl,
    user: resolved.creds.username,
    credentialSource: resolved.source,
    graph: settings.graph,
    timeoutMs: settings.timeoutMs,
  };
  const api = createSecretApi({
    gsqlUrl: settings.gsqlUrl,
    restppUrl: settings.restppUrl,
    version: settings.version,
    timeoutMs: settings.timeoutMs,
  });
  try {
    return await work(api, resolved.creds, settings.graph);
  } catch (err) {
    throw explain(err, where);
  } finally {
    await api.close();
  }
}

// A listing never shows a full value, even from a server that (like 4.x REST) answers in clear.
const masked = (r: SecretRecord): SecretRecord => ({
  ...r,
  secret: r.secret.includes('****') ? r.secret : maskSecret(r.secret),
});

export const listSecrets: CommandRunner = async (ctx) => {
  const { graph, records } = await withSecretApi(ctx, async (api, creds, graph) => ({
    graph,
    records: (await api.listSecrets(creds, graph)).map(masked),
  }));
  const human =
    records.length === 0
      ? `no secrets on graph ${graph}`
      : table([['ALIAS', 'SECRET', 'GRAPH'], ...records.map((r) => [r.alias, r.secret, r.graph ?? graph])]);
  ctx.out.result(
    { graph, secrets: records.map((r) => ({ alias: r.alias, secret: r.secret, graph: r.graph ?? graph })) },
    human,
  );
  return ExitCode.ok;
};

export const createSecret: CommandRunner = async (ctx) => {
  const wanted = typeof ctx.values.alias === 'string' ? ctx.values.alias : undefined;
  const { graph, made } = await withSecretApi(ctx, async (api, creds, graph) => ({
    graph,
    made: await api.createSecret(creds, graph, wanted),
  }));
  const lines = [`secret: ${made.secret}`];
  if (wanted === undefined) lines.unshift(`alias:  ${made.alias || '(unknown: see tgbff secrets list)'}`);
  // The one deliberate print of a full secret: it cannot be read back later.
  ctx.out.result(
    { alias: made.alias, secret: made.secret, graph, generatedAlias: wanted === undefined },
    lines.join('\n'),
  );
  ctx.out.note(`Created on graph ${graph}. Store the secret now: listings only ever show it masked.`);
  return ExitCode.ok;
};

export const dropSecrets: CommandRunner = async (ctx) => {
  const strict = ctx.values.strict === true;
  const aliases = [...new Set(ctx.positionals)];
  const { graph, dropped, notFound } = await withSecretApi(ctx, async (api, creds, graph) => {
    const dropped: string[] = [];
    const notFound: string[] = [];
    // One at a time, so one unknown alias does not stop the others from being dropped.
    for (const alias of aliases) {
      try {
        await api.dropSecret(creds, graph, alias);
        dropped.push(alias);
      } catch (err) {
        if (!(err instanceof TigerGraphError && err.kind === 'secret_not_found')) throw err;
        notFound.push(alias);
      }
    }
    return { graph, dropped, notFound };
  });
  const human = [
    ...dropped.map((a) => `dropped ${a}`),
    ...notFound.map((a) => `not found ${a}${strict ? '' : ' (ignored)'}`),
  ].join('\n');
  ctx.out.result({ graph, dropped, notFound }, human);
  if (strict && notFound.length > 0) {
    throw new CliError(ExitCode.notFound, 'not_found', `no secret with alias ${notFound.join(', ')} on graph ${graph}`);
  }
  return ExitCode.ok;
};
