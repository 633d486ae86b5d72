import { Agent, type Dispatcher } from 'undici';
import {
  compact,
  resolveUrls,
  results,
  triple,
  type ConnectionOptions,
  type TokenTriple,
  type TokenVersion,
  type TripleVersion,
  type VertexQuery,
} from './connection-options.js';
import { createDataClient, parseVersionMessage, type DataClient, type QueryParams } from './data-client.js';
import { TigerGraphError } from './errors.js';
import { createTokenApi, DEFAULT_LIFETIME_3X, type TokenClient } from './restpp-client.js';
import { createSecretApi, type SecretClient } from './secret-api.js';
import type { AdminCredentials, WireEra } from './types.js';

export type { ConnectionOptions, TokenTriple, TokenVersion, TripleVersion, VertexQuery };
import { getTokenReturnsTriple, wireEraOf } from './capabilities.js';

/**
 * The seed's connection object: its method names, defaults and return shapes, over the typed clients.
 * `V` is the version as the caller spelled it, so `getToken` is typed by it.
 */
export class TigerGraphConnection<V extends string = string> {
  readonly version: V;
  readonly era: WireEra;
  readonly graphname: string;
  readonly restppUrl: string;
  readonly gsqlUrl: string;
  private token: string | undefined;
  private warnedShowSecrets = false;
  private readonly creds: AdminCredentials;
  private readonly tokens: TokenClient;
  private readonly secrets: SecretClient;
  private readonly data: DataClient;
  private readonly ownAgent: Agent | undefined;
  private readonly warn: (message: string) => void;

  constructor(opts: ConnectionOptions & { version: V }) {
    const era = wireEraOf(opts.version);
    this.version = opts.version;
    this.era = era;
    this.graphname = opts.graphname ?? '';
    ({ restppUrl: this.restppUrl, gsqlUrl: this.gsqlUrl } = resolveUrls(opts));
    this.creds = { username: opts.username ?? 'tigergraph', password: opts.password ?? 'tigergraph' };
    this.token = opts.apiToken === '' ? undefined : opts.apiToken;
    this.warn = opts.warn ?? ((message) => process.emitWarning(message, 'DeprecationWarning'));
    this.ownAgent = opts.dispatcher === undefined ? new Agent() : undefined;
    const shared = {
      restppUrl: this.restppUrl,
      gsqlUrl: this.gsqlUrl,
      version: opts.version,
      dispatcher: opts.dispatcher ?? this.ownAgent,
      timeoutMs: opts.timeoutMs,
      now: opts.now,
    };
    this.tokens = createTokenApi(shared);
    this.secrets = createSecretApi(shared);
    this.data = createDataClient({
      restppUrl: this.restppUrl,
      dispatcher: shared.dispatcher as Dispatcher,
      timeoutMs: opts.timeoutMs ?? 10_000,
      token: () => this.token,
    });
  }

  /** The token data calls carry as `Authorization: Bearer`, if any. */
  get apiToken(): string | undefined {
    return this.token;
  }

  async getSecrets(): Promise<Record<string, string>> {
    const records = await this.secrets.listSecrets(this.creds, this.graph('getSecrets'));
    return Object.fromEntries(records.map((r) => [r.alias, r.secret]));
  }

  /** @deprecated Use getSecrets(). */
  showSecrets(): Promise<Record<string, string>> {
    if (!this.warnedShowSecrets) {
      this.warnedShowSecrets = true;
      this.warn('showSecrets() is deprecated; use getSecrets() instead.');
    }
    return this.getSecrets();
  }

  createSecret(alias?: string, withAlias?: false): Promise<string>;
  createSecret(alias: string, withAlias: true): Promise<Record<string, string>>;
  async createSecret(alias = '', withAlias = false): Promise<string | Record<string, string>> {
    const made = await this.secrets.createSecret(
      this.creds,
      this.graph('createSecret'),
      alias === '' ? undefined : alias,
    );
    return withAlias ? { [made.alias]: made.secret } : made.secret;
  }

  /** Drops each alias in turn; resolves with one line per alias saying what happened. */
  async dropSecret(alias: string | readonly string[], ignoreErrors = true): Promise<string> {
    const lines: string[] = [];
    for (const one of typeof alias === 'string' ? [alias] : alias) {
      try {
        await this.secrets.dropSecret(this.creds, this.graph('dropSecret'), one);
        lines.push(`Successfully dropped secrets: ${one}`);
      } catch (err) {
        if (!(ignoreErrors && err instanceof TigerGraphError && err.kind === 'secret_not_found')) throw err;
        lines.push(`Failed to drop secrets: ${one} does not exist`);
      }
    }
    return lines.join('\n');
  }

  /**
   * 3.5 and earlier: the triple; 3.6 and later: the token alone. Without a secret, logs in as the user (3.5+).
   * Typed by the version the connection was made with: a literal "4.1.0" or "3.9.3" gives `Promise<string>`,
   * "3.5.2" `Promise<TokenTriple>`, a version known only at run time the union (or use `getTokenString`).
   */
  getToken(
    this: TigerGraphConnection<TripleVersion>,
    secret?: string,
    setToken?: boolean,
    lifetime?: number,
  ): Promise<TokenTriple>;
  getToken(
    this: TigerGraphConnection<TokenVersion>,
    secret?: string,
    setToken?: boolean,
    lifetime?: number,
  ): Promise<string>;
  getToken(secret?: string, setToken?: boolean, lifetime?: number): Promise<string | TokenTriple>;
  async getToken(secret?: string, setToken = true, lifetime?: number): Promise<string | TokenTriple> {
    const grant = await this.grant(secret, setToken, lifetime);
    return getTokenReturnsTriple(this.version) ? triple(grant) : grant.token;
  }

  /** `getToken`, answering the token alone on every version (for a version known only at run time). */
  async getTokenString(secret?: string, setToken = true, lifetime?: number): Promise<string> {
    return (await this.grant(secret, setToken, lifetime)).token;
  }

  private async grant(secret: string | undefined, setToken: boolean, lifetime: number | undefined) {
    const grant =
      secret === undefined || secret === ''
        ? await this.tokens.requestTokenWithPassword(this.creds, this.graph('getToken without a secret'), lifetime)
        : await this.tokens.requestToken(secret, lifetime);
    if (setToken) this.token = grant.token;
    return grant;
  }

  /** New expiry = now + lifetime (default 2,592,000 s). On 4.1+ a new token is minted instead. */
  async refreshToken(secret: string, token = '', lifetime?: number): Promise<TokenTriple> {
    const target = this.currentOr(token, 'refreshToken');
    // The seed's default is sent explicitly on 3.x so the new expiry is now + 30 days whatever the
    // server would do; 4.1+ JWT lifetimes have an uncertain unit, so there the server default applies.
    const asked = lifetime ?? (this.era === 'jwt' ? undefined : DEFAULT_LIFETIME_3X);
    const grant = await this.tokens.refreshToken(secret, target, asked);
    if (target === this.token) this.token = grant.token;
    return triple(grant);
  }

  /** With skipNA, a token that does not exist counts as deleted. */
  async deleteToken(secret: string, token?: string, skipNA = true): Promise<true> {
    const target = this.currentOr(token ?? '', 'deleteToken');
    try {
      await this.tokens.deleteToken(secret, target);
    } catch (err) {
      if (!(skipNA && err instanceof TigerGraphError && err.kind === 'token_not_found')) throw err;
    }
    if (target === this.token) this.token = undefined;
    return true;
  }

  async echo(): Promise<string> {
    return String((await this.data.get('/echo'))['message'] ?? '');
  }

  /** The server's version, e.g. "3.9.3", from GET /version. */
  async getVersion(): Promise<string> {
    const message = String((await this.data.get('/version'))['message'] ?? '');
    const version = parseVersionMessage(message);
    if (version === undefined) throw new TigerGraphError('protocol', 'GET /version carried no recognisable version');
    return version;
  }

  async getVertices(vertexType: string, query: VertexQuery = {}): Promise<unknown[]> {
    const path = `/graph/${encodeURIComponent(this.graph('getVertices'))}/vertices/${encodeURIComponent(vertexType)}`;
    return results(await this.data.get(path, compact({ ...query })));
  }

  async runInstalledQuery(name: string, params: QueryParams = {}): Promise<unknown[]> {
    const path = `/query/${encodeURIComponent(this.graph('runInstalledQuery'))}/${encodeURIComponent(name)}`;
    return results(await this.data.get(path, params));
  }

  /** Closes the Agent this connection created; a dispatcher passed in is left to its owner. */
  async close(): Promise<void> {
    await this.ownAgent?.close();
  }

  private graph(what: string): string {
    if (this.graphname === '')
      throw new TigerGraphError('bad_request', `${what} needs a graph: pass graphname to the connection`);
    return this.graphname;
  }

  private currentOr(token: string, what: string): string {
    const target = token === '' ? this.token : token;
    if (target === undefined)
      throw new TigerGraphError('bad_request', `${what} needs a token: pass one or call getToken() first`);
    return target;
  }
}
