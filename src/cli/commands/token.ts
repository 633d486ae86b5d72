import {
  createTokenApi,
  type TokenClient,
  maskSecret,
  TigerGraphError,
  type TokenGrant,
  capabilitiesOf,
} from '@tigergraph-bff/client';
import { positiveInt } from '../args.js';
import { ExitCode, usageError } from '../cli-error.js';
import { loadSettings, type CommandContext, type CommandRunner } from '../context.js';
import { explain } from '../explain.js';
import { isoTime } from '../output.js';
import { readSecret } from '../secret-input.js';

interface TokenWork {
  api: TokenClient;
  secret: string;
  token: string | undefined;
  lifetime: number | undefined;
}

/** --token, else TG_TOKEN (an environment variable is not in `ps`); for refresh and delete, one is required. */
function tokenArgument(ctx: CommandContext): string {
  const token = typeof ctx.values.token === 'string' ? ctx.values.token.trim() : ctx.env.TG_TOKEN?.trim();
  if (!token) throw usageError('no token given: pass --token or set TG_TOKEN');
  return token;
}

/** Validates flags before touching the secret, so a typo never costs the user a prompt. */
async function withTokenApi<T>(
  ctx: CommandContext,
  needsToken: boolean,
  work: (w: TokenWork) => Promise<T>,
): Promise<T> {
  const token = needsToken ? tokenArgument(ctx) : undefined;
  const lifetime = positiveInt(typeof ctx.values.lifetime === 'string' ? ctx.values.lifetime : undefined, '--lifetime');
  const { settings } = await loadSettings(ctx);
  if (token !== undefined) ctx.out.protect(token);
  ctx.out.info(`data server ${settings.restppUrl} (from ${settings.from.restppUrl})`);
  if (capabilitiesOf(settings.version).tokenEndpoint === 'gsql')
    ctx.out.info(`admin server ${settings.gsqlUrl} (from ${settings.from.gsqlUrl}): 4.1+ issues tokens there`);
  const { secret, source } = await readSecret(ctx.env, ctx.stdin, ctx.prompter);
  ctx.out.protect(secret);
  ctx.out.info(`secret from ${source}`);
  const api = createTokenApi({
    restppUrl: settings.restppUrl,
    gsqlUrl: settings.gsqlUrl,
    version: settings.version,
    timeoutMs: settings.timeoutMs,
  });
  try {
    return await work({ api, secret, token, lifetime });
  } catch (err) {
    throw explain(err, {
      server: 'data',
      url: settings.restppUrl,
      secretSource: source,
      token,
      timeoutMs: settings.timeoutMs,
    });
  } finally {
    await api.close();
  }
}

function printGrant(ctx: CommandContext, grant: TokenGrant): number {
  // The one deliberate print of a full token: the caller asked for it.
  const iso = isoTime(grant.expiresAt);
  ctx.out.result(
    { token: grant.token, expiresAt: grant.expiresAt, expiresAtIso: iso },
    `token:   ${grant.token}\nexpires: ${iso} (${grant.expiresAt})`,
  );
  return ExitCode.ok;
}

export const getToken: CommandRunner = async (ctx) =>
  printGrant(ctx, await withTokenApi(ctx, false, ({ api, secret, lifetime }) => api.requestToken(secret, lifetime)));

export const refreshToken: CommandRunner = async (ctx) =>
  printGrant(
    ctx,
    await withTokenApi(ctx, true, ({ api, secret, token, lifetime }) => api.refreshToken(secret, token!, lifetime)),
  );

export const deleteToken: CommandRunner = async (ctx) => {
  const strict = ctx.values.strict === true;
  const { deleted, masked } = await withTokenApi(ctx, true, async ({ api, secret, token }) => {
    const masked = maskSecret(token!);
    try {
      await api.deleteToken(secret, token!);
      return { deleted: true, masked };
    } catch (err) {
      if (strict || !(err instanceof TigerGraphError && err.kind === 'token_not_found')) throw err;
      return { deleted: false, masked };
    }
  });
  ctx.out.result(
    { deleted, token: masked },
    deleted ? `deleted token ${masked}` : `token ${masked} did not exist (ignored)`,
  );
  return ExitCode.ok;
};
