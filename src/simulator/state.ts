import type { JwtSigner } from './jwt.js';
import { newAlias, newSecretValue, newToken } from './random.js';

export interface SimUser {
  name: string;
  password: string;
  graphs: Set<string>;
  superuser: boolean;
}

export interface SimSecret {
  alias: string;
  value: string;
  user: string;
  /** 3.x secrets belong to one graph; 4.1+ secrets may have none. */
  graph: string | undefined;
}

export interface SimToken {
  token: string;
  user: string;
  graph: string | undefined;
  /** The secret it was minted with; undefined for username/password tokens. */
  secret: string | undefined;
  secretAlias: string;
  /** Epoch seconds. */
  expiresAt: number;
}

export type TokenLookup =
  { state: 'ok'; record: SimToken } | { state: 'expired'; record: SimToken } | { state: 'unknown' };

export const SUPERUSER = 'tigergraph';

/** Users, graphs, secrets and tokens of one simulator. The clock is injected so tests can move time. */
export class SimState {
  readonly users = new Map<string, SimUser>();
  readonly graphs = new Set<string>();
  private readonly secrets = new Map<string, SimSecret>();
  private readonly tokens = new Map<string, SimToken>();

  constructor(
    private readonly now: () => number,
    private readonly jwt: JwtSigner,
  ) {}

  nowSeconds(): number {
    return Math.floor(this.now() / 1000);
  }

  addUser(name: string, password: string, graphs: string[] = [], superuser = false): void {
    this.users.set(name, { name, password, graphs: new Set(graphs), superuser });
  }

  /** The user when the password matches; `__GSQL__secret` with a secret as password logs in its owner. */
  login(name: string, password: string): { user: SimUser; secret?: SimSecret } | undefined {
    if (name === '__GSQL__secret') {
      const secret = this.secrets.get(password);
      const user = secret && this.users.get(secret.user);
      return user && secret ? { user, secret } : undefined;
    }
    const user = this.users.get(name);
    return user && user.password === password ? { user } : undefined;
  }

  canUseGraph(user: SimUser, graph: string): boolean {
    return this.graphs.has(graph) && (user.superuser || user.graphs.has(graph));
  }

  /** Throws when the user already has a secret with that alias, or the value is taken. */
  createSecret(opts: {
    user: string;
    graph?: string | undefined;
    alias?: string | undefined;
    value?: string | undefined;
  }): SimSecret {
    const alias = opts.alias || newAlias();
    if (this.secretsOf(opts.user).some((s) => s.alias === alias)) {
      throw new Error(`secret alias "${alias}" already exists for user "${opts.user}"`);
    }
    if (opts.value !== undefined && this.secrets.has(opts.value))
      throw new Error('that secret value is already in use');
    const secret: SimSecret = { alias, value: opts.value ?? newSecretValue(), user: opts.user, graph: opts.graph };
    this.secrets.set(secret.value, secret);
    return secret;
  }

  findSecret(value: string): SimSecret | undefined {
    return this.secrets.get(value);
  }

  /** A user's secret named by alias or by its full value. */
  findUserSecret(user: string, aliasOrValue: string): SimSecret | undefined {
    const byValue = this.secrets.get(aliasOrValue);
    if (byValue?.user === user) return byValue;
    return this.secretsOf(user).find((s) => s.alias === aliasOrValue);
  }

  secretsOf(user: string): SimSecret[] {
    return [...this.secrets.values()].filter((s) => s.user === user);
  }

  /** Dropping a secret invalidates every token minted with it, as TigerGraph documents. */
  dropSecret(secret: SimSecret): void {
    this.secrets.delete(secret.value);
    for (const [token, record] of this.tokens) if (record.secret === secret.value) this.tokens.delete(token);
  }

  mintToken(opts: { user: string; graph?: string; secret?: SimSecret; lifetime: number; jwt: boolean }): SimToken {
    const iat = this.nowSeconds();
    const expiresAt = iat + opts.lifetime;
    const graph = opts.graph ?? opts.secret?.graph;
    const token = opts.jwt
      ? this.jwt.sign({ sub: opts.user, iat, exp: expiresAt, ...(graph ? { graph } : {}) })
      : newToken();
    const record: SimToken = {
      token,
      user: opts.user,
      graph,
      secret: opts.secret?.value,
      secretAlias: opts.secret?.alias ?? '',
      expiresAt,
    };
    this.pruneExpired();
    this.tokens.set(token, record);
    return record;
  }

  lookupToken(token: string): TokenLookup {
    const record = this.tokens.get(token);
    if (!record) return { state: 'unknown' };
    return this.now() >= record.expiresAt * 1000 ? { state: 'expired', record } : { state: 'ok', record };
  }

  /** Same token, expiry = now + lifetime (not old expiry + lifetime). */
  refreshToken(record: SimToken, lifetime: number): void {
    record.expiresAt = this.nowSeconds() + lifetime;
  }

  revokeToken(token: string): boolean {
    return this.tokens.delete(token);
  }

  liveTokens(): SimToken[] {
    return [...this.tokens.values()].filter((t) => this.now() < t.expiresAt * 1000);
  }

  /** Expired tokens stay (so data calls can answer "expired") until the map grows large. */
  private pruneExpired(): void {
    if (this.tokens.size < 10_000) return;
    const cutoff = this.now() - 86_400_000;
    for (const [token, record] of this.tokens) if (record.expiresAt * 1000 < cutoff) this.tokens.delete(token);
  }
}
