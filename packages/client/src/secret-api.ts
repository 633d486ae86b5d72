import { maskSecret, TigerGraphError } from './errors.js';
import { createGsqlClient, type GsqlClient } from './gsql-client.js';
import { isName, isSecretOrAlias } from './names.js';
import { parseCreateSecret, parseDropSecret, parseShowSecrets, requireGraphUsed } from './parse-gsql-output.js';
import { restCreateSecret, restDropSecret, restGetSecret, restListSecrets } from './rest-secrets.js';
import type { AdminCredentials, ClientOptions, SecretApi } from './types.js';
import { capabilitiesOf } from './capabilities.js';

export type SecretApiOptions = Omit<ClientOptions, 'restppUrl' | 'now'> & { restppUrl?: string };

export interface SecretClient extends SecretApi {
  readonly gsql: GsqlClient;
  /** Resolves when `creds` may use `graph`; throws TigerGraphError kind 'graph_not_found' otherwise. */
  useGraph(creds: AdminCredentials, graph: string): Promise<void>;
  /**
   * The secret `alias` of `owner` (default: the caller), as the admin server shows it: in clear from the 4.1+
   * REST API (`masked: false`; a superuser may name another owner), masked from SHOW SECRET otherwise, where
   * only the caller's own secrets are shown (an `owner` other than the caller is a `bad_request`). Throws
   * kind 'secret_not_found' when the owner has no such alias.
   */
  secretOf(creds: AdminCredentials, alias: string, owner?: string): Promise<{ secret: string; masked: boolean }>;
  close(): Promise<void>;
}

export function createSecretApi(opts: SecretApiOptions): SecretClient {
  const gsqlUrl = opts.gsqlUrl ?? opts.restppUrl?.replace(/\/+$/, '').match(/^(.*)\/restpp$/)?.[1];
  if (gsqlUrl === undefined) {
    throw new TigerGraphError(
      'bad_request',
      'gsqlUrl (the admin server, e.g. http://host:14240) is needed to manage secrets',
    );
  }
  const gsql = createGsqlClient({
    gsqlUrl,
    version: opts.version,
    dispatcher: opts.dispatcher,
    timeoutMs: opts.timeoutMs,
  });
  // 4.1+ has a REST secrets API; it answers JSON with the alias, where GSQL text needs a SHOW to learn it.
  const preferRest = capabilitiesOf(opts.version).secretsApi === 'rest';

  // A refused USE GRAPH is HTTP 200 and prose, and the statements after it may still run (on no graph, or on
  // all of the user's secrets): so every script checks that its USE GRAPH took before reading the rest, and
  // a statement that changes something runs only after a USE GRAPH of its own has taken.
  const run = async (creds: AdminCredentials, graph: string, statement: string): Promise<string> => {
    const output = await gsql.runGsql(creds, `USE GRAPH ${name(graph, 'graph')}\n${statement}`);
    requireGraphUsed(output, graph);
    return output;
  };
  const useGraph = async (creds: AdminCredentials, graph: string): Promise<void> => void (await run(creds, graph, ''));
  // 4.1+ secrets belong to no graph and '' names none; a graph the caller does name must exist.
  const useNamedGraph = async (creds: AdminCredentials, graph: string): Promise<void> => {
    if (!preferRest || graph !== '') await useGraph(creds, graph);
  };

  async function listSecrets(creds: AdminCredentials, graph: string) {
    if (preferRest) await useNamedGraph(creds, graph);
    const viaRest = preferRest ? await restListSecrets(gsql, creds) : undefined;
    return viaRest ?? parseShowSecrets(await run(creds, graph, 'SHOW SECRET'));
  }

  return {
    gsql,
    async createSecret(creds, graph, alias) {
      const wanted = alias === undefined || alias === '' ? undefined : name(alias, 'alias');
      await useNamedGraph(creds, graph);
      const viaRest = preferRest ? await restCreateSecret(gsql, creds, wanted) : undefined;
      if (viaRest !== undefined) return viaRest;
      const secret = parseCreateSecret(await run(creds, graph, `CREATE SECRET ${wanted ?? ''}`.trim()), wanted);
      if (wanted !== undefined) return { alias: wanted, secret };
      return { alias: learnAlias(await listSecrets(creds, graph), secret), secret };
    },
    listSecrets,
    useGraph,
    async secretOf(creds, alias, owner) {
      if (!isName(alias)) throw new TigerGraphError('bad_request', 'A secret alias must be letters, digits or _');
      const viaRest = preferRest ? await restGetSecret(gsql, creds, alias, owner) : undefined;
      if (viaRest !== undefined) return { secret: viaRest.secret, masked: false };
      if (owner !== undefined && owner !== creds.username)
        throw new TigerGraphError('bad_request', "SHOW SECRET shows only the caller's own secrets on this version");
      const found = parseShowSecrets(await gsql.runGsql(creds, 'SHOW SECRET')).find((r) => r.alias === alias);
      if (found === undefined) throw new TigerGraphError('secret_not_found', `No secret with alias ${alias}.`);
      return { secret: found.secret, masked: true };
    },
    async dropSecret(creds, graph, alias) {
      if (!isSecretOrAlias(alias))
        throw new TigerGraphError('bad_request', 'A secret alias must be letters, digits or _');
      await useNamedGraph(creds, graph);
      const viaRest = preferRest ? await restDropSecret(gsql, creds, alias) : undefined;
      if (viaRest === undefined) parseDropSecret(await run(creds, graph, `DROP SECRET ${alias}`), alias);
    },
    close: () => gsql.close(),
  };
}

/**
 * A generated alias is only visible in SHOW SECRET, next to the masked value; match on the mask and
 * prefer generated aliases when two secrets happen to share one. When nothing matches, the alias is
 * left empty rather than throwing: the secret exists now and its value must not be lost.
 */
function learnAlias(records: ReadonlyArray<{ alias: string; secret: string }>, secret: string): string {
  const masked = maskSecret(secret);
  const matches = records.filter((r) => r.secret === masked);
  const generated = matches.filter((r) => r.alias.startsWith('AUTO_GENERATED_ALIAS_'));
  return (generated.length > 0 ? generated : matches).at(-1)?.alias ?? '';
}

function name(value: string, what: string): string {
  if (!isName(value))
    throw new TigerGraphError('bad_request', `A ${what} name must be an identifier (letters, digits, _)`);
  return value;
}
