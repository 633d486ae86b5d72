import { CliError, ExitCode, usageError } from '../cli-error.js';
import { loadSettings, type CommandContext, type CommandRunner } from '../context.js';
import { resolveCredentials } from '../credentials.js';
import { table } from '../output.js';
import { readSecret } from '../secret-input.js';
import { call, readJson, serviceUrl } from '../service-http.js';

const str = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() ? v.trim() : undefined);

interface Listed {
  id: string;
  /** By alias on 3.x: which secret (a keyed id's first characters), as several can share a masked value. */
  credential?: string;
  login: string;
  graph: string | null;
  createdAt: string;
  lastSeenAt: string;
  client: string | null;
  address: string | null;
}

/**
 * Whose sessions, from exactly one of --user, --subject, --secret (the secret from TG_SECRET, stdin or a prompt)
 * or --alias (with --owner and --all-matching).
 */
async function principalOf(ctx: CommandContext): Promise<{ body: Record<string, string | boolean>; name: string }> {
  const user = str(ctx.values.user);
  const subject = str(ctx.values.subject);
  const alias = str(ctx.values.alias);
  const owner = str(ctx.values.owner);
  const allMatching = ctx.values['all-matching'] === true;
  const bySecret = ctx.values.secret === true;
  if ([user, subject, alias, bySecret || undefined].filter((v) => v !== undefined).length !== 1)
    throw usageError('name exactly one principal: --user NAME, --subject SUB, --secret or --alias ALIAS');
  if (alias === undefined && (owner !== undefined || allMatching))
    throw usageError('--owner and --all-matching go with --alias only');
  if (alias !== undefined)
    return {
      body: { alias, ...(owner !== undefined && { owner }), ...(allMatching && { allMatching }) },
      name: `alias ${alias}${owner !== undefined ? ` of ${owner}` : ''}`,
    };
  if (user !== undefined) return { body: { user }, name: `user ${user}` };
  if (subject !== undefined) return { body: { subject }, name: `subject ${subject}` };
  const { secret, source } = await readSecret(ctx.env, ctx.stdin, ctx.prompter);
  ctx.out.protect(secret);
  ctx.out.info(`secret from ${source}`);
  return { body: { secret }, name: 'the secret' };
}

/** One call to /admin/sessions/<what> as the operator (Basic auth, the CSRF header the service asks of every POST). */
async function adminCall(ctx: CommandContext, what: 'list' | 'end'): Promise<{ answer: unknown; name: string }> {
  const service = str(ctx.values.service) ?? str(ctx.env.TGBFF_URL);
  if (service === undefined) throw usageError('no service: pass --service URL or set TGBFF_URL');
  const base = serviceUrl(service);
  const { settings, config } = await loadSettings(ctx);
  const url = new URL(base);
  const resolved = await resolveCredentials({
    user: str(ctx.values.admin),
    env: ctx.env,
    homeDir: ctx.homeDir,
    server: base,
    host: url.hostname,
    netrcDefault: ctx.values['netrc-default'] === true || ctx.env.TGBFF_NETRC_DEFAULT === '1',
    config,
    prompter: ctx.prompter,
  });
  ctx.out.protect(resolved.creds.password);
  ctx.out.info(`service ${base}; operator '${resolved.creds.username}' from ${resolved.source}`);
  const principal = await principalOf(ctx);
  const basic = Buffer.from(`${resolved.creds.username}:${resolved.creds.password}`).toString('base64');
  ctx.out.protect(basic);
  const where = `the service at ${base}`;
  const res = await call(
    `${base}/admin/sessions/${what}`,
    {
      method: 'POST',
      headers: {
        Authorization: `Basic ${basic}`,
        'X-Requested-With': 'XMLHttpRequest',
        'Content-Type': 'application/json',
      },
      body: JSON.stringify(principal.body),
    },
    settings.timeoutMs,
    where,
  );
  const answer = await readJson(res, where);
  if (res.status !== 200) {
    const error = (answer as { error?: { code?: unknown; message?: unknown } }).error;
    const message = typeof error?.message === 'string' ? error.message : `status ${res.status}`;
    const code = typeof error?.code === 'string' ? error.code : 'refused';
    const exit =
      res.status === 401 || res.status === 403
        ? ExitCode.badCredentials
        : res.status === 404
          ? ExitCode.notFound
          : ExitCode.other;
    // 404 not_found: the service runs without ADMIN_ROUTES (an unknown alias is secret_not_found).
    const hint = code === 'not_found' ? ' (is ADMIN_ROUTES on?)' : '';
    throw new CliError(exit, code, `${where} refused: ${message}${hint}`);
  }
  return { answer, name: principal.name };
}

export const listSessions: CommandRunner = async (ctx) => {
  const { answer, name } = await adminCall(ctx, 'list');
  const { sessions = [], ...match } = answer as { sessions?: Listed[]; match?: string; credentials?: number };
  const byCredential = sessions.some((s) => s.credential !== undefined);
  const human =
    sessions.length === 0
      ? `no live sessions of ${name}`
      : table([
          [...(byCredential ? ['SECRET'] : []), 'ID', 'LOGIN', 'GRAPH', 'CREATED', 'LAST SEEN', 'CLIENT', 'ADDRESS'],
          ...sessions.map((s) => [
            ...(byCredential ? [s.credential ?? '-'] : []),
            s.id,
            s.login,
            s.graph ?? '-',
            s.createdAt,
            s.lastSeenAt,
            s.client ?? '-',
            s.address ?? '-',
          ]),
        ]);
  const note =
    (match.credentials ?? 0) > 1
      ? `\n${match.credentials} secrets share this masked value: \`sessions end\` needs --all-matching to end them all`
      : '';
  ctx.out.result({ sessions, ...match }, human + note);
  return ExitCode.ok;
};

export const endSessions: CommandRunner = async (ctx) => {
  const { answer, name } = await adminCall(ctx, 'end');
  const ended = (answer as { ended?: number }).ended ?? 0;
  ctx.out.result({ ended }, `ended ${ended} session${ended === 1 ? '' : 's'} of ${name}`);
  return ExitCode.ok;
};
