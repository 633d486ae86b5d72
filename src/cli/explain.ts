import { maskSecret, TigerGraphError } from '@tigergraph-bff/client';
import { CliError, ExitCode } from './cli-error.js';

/** What the failed call was, so the message can say which server, whose credentials and what to try. */
export type Situation =
  | { server: 'admin'; url: string; user: string; credentialSource: string; graph: string; timeoutMs: number }
  | { server: 'data'; url: string; secretSource: string; token?: string; timeoutMs: number };

const flagFor = { admin: '--gsql-url / TG_GSQL_URL', data: '--restpp-url / TG_RESTPP_URL' } as const;

/**
 * Maps client-library failures onto exit codes by `kind` (never by message text) and rewrites them
 * as something a person can act on. Anything unknown keeps exit code 1 and its own message.
 */
export function explain(err: unknown, where: Situation): CliError {
  if (err instanceof CliError) return err;
  if (!(err instanceof TigerGraphError)) {
    const message = err instanceof Error ? err.message : String(err);
    return new CliError(ExitCode.other, 'internal', `unexpected failure: ${message}`, { cause: err });
  }
  const server = `the ${where.server} server at ${where.url}`;
  // Every admin failure says whose credentials went where, so a surprise (a server or a file nobody meant) shows.
  const used = where.server === 'admin' ? { user: where.user, source: where.credentialSource } : undefined;
  const make = (exit: (typeof ExitCode)[keyof typeof ExitCode], code: string, message: string): CliError => {
    const full =
      used === undefined || message.includes(`credentials from ${used.source}`)
        ? message
        : `${message} [user '${used.user}', credentials from ${used.source}]`;
    return new CliError(exit, code, full, { cause: err });
  };

  switch (err.kind) {
    case 'unreachable':
      return make(
        ExitCode.unreachable,
        'unreachable',
        `cannot reach ${server}: is it running, and is the URL right (${flagFor[where.server]})?`,
      );
    case 'timeout':
      return make(
        ExitCode.unreachable,
        'timeout',
        `${server} did not answer within ${where.timeoutMs} ms (raise it with --timeout-ms)`,
      );
    case 'auth_disabled':
      return make(
        ExitCode.authDisabled,
        'auth_disabled',
        `authentication is disabled on ${server} (RESTPP.Factory.EnableAuth is false): there are no tokens, data requests need none`,
      );
    case 'invalid_credentials':
      return where.server === 'admin'
        ? make(
            ExitCode.badCredentials,
            'bad_credentials',
            `${server} refused user '${where.user}' (credentials from ${where.credentialSource}): wrong user name or password, or no privilege on graph '${where.graph}'`,
          )
        : make(
            ExitCode.badCredentials,
            'bad_credentials',
            `${server} rejected the secret from ${where.secretSource}: it does not exist, was dropped, or lacks privilege (${err.code ?? `HTTP ${err.status ?? '?'}`})`,
          );
    case 'token_not_found': {
      const which = where.server === 'data' && where.token ? `token ${maskSecret(where.token)}` : 'the token';
      return make(
        ExitCode.notFound,
        'not_found',
        `${which} does not exist on ${server}: it expired, was deleted, or belongs to another secret`,
      );
    }
    case 'secret_not_found':
      return make(ExitCode.notFound, 'not_found', err.message);
    case 'graph_not_found': {
      const graph = where.server === 'admin' ? where.graph : undefined;
      const who = where.server === 'admin' ? `user '${where.user}'` : 'this secret';
      return make(
        ExitCode.graphNotFound,
        'graph_not_found',
        `graph '${graph ?? '?'}' does not exist on ${server}, or ${who} may not use it: check --graph / TG_GRAPH`,
      );
    }
    case 'secret_exists':
      return make(
        ExitCode.other,
        'secret_exists',
        `${err.message.replace(/\.$/, '')}: choose another --alias or drop the old one first`,
      );
    case 'bad_request':
      return make(ExitCode.usage, 'bad_request', `${server} refused the request: ${err.message}`);
    case 'protocol': {
      // GSQL reports a graph it cannot use in free text the client cannot classify; name the likely cause.
      const hint =
        where.server === 'admin'
          ? ` (check that graph '${where.graph}' exists and '${where.user}' may use it: --graph / TG_GRAPH)`
          : '';
      return make(ExitCode.other, 'protocol', `unexpected answer from ${server}: ${err.message}${hint}`);
    }
  }
}
