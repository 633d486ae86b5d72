import { Agent } from 'undici';
import { TigerGraphError } from './errors.js';
import { sendHttp } from './http.js';
import { asGraphRefusal, checkDeleteAnswer, parseTokenAnswer, type TokenOp } from './parse-token-response.js';
import { buildTokenCall, type TokenCallParams } from './token-requests.js';
import type { AdminCredentials, ClientOptions, TokenApi, TokenGrant } from './types.js';
import { capabilitiesOf } from './capabilities.js';

/** Server-side default lifetimes when none is asked for: 30 days on 3.x, 7 days for 4.1+ JWTs. */
export const DEFAULT_LIFETIME_3X = 2_592_000;
export const DEFAULT_LIFETIME_JWT = 604_800;
export const DEFAULT_TIMEOUT_MS = 10_000;

export interface TokenClient extends TokenApi {
  /** User/password login for a graph (3.5+): what getToken() without a secret does. */
  requestTokenWithPassword(creds: AdminCredentials, graph: string, lifetime?: number): Promise<TokenGrant>;
  /** Closes the Agent this client created; a dispatcher passed in is left to its owner. */
  close(): Promise<void>;
}

export function createTokenApi(opts: ClientOptions): TokenClient {
  const caps = capabilitiesOf(opts.version);
  const era = caps.era;
  const ownAgent = opts.dispatcher === undefined ? new Agent() : undefined;
  const dispatcher = opts.dispatcher ?? (ownAgent as Agent);
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const now = opts.now ?? Date.now;
  const urls = { restppUrl: opts.restppUrl, gsqlUrl: opts.gsqlUrl };
  const defaultLifetime = caps.defaultLifetimeSec;

  async function call(op: TokenOp, params: TokenCallParams): Promise<{ status: number; text: string; nowMs: number }> {
    checkLifetime(params.lifetime);
    const nowMs = now();
    const answer = await sendHttp(dispatcher, buildTokenCall(era, op, params, urls), timeoutMs);
    return { ...answer, nowMs };
  }

  async function grant(op: TokenOp, params: TokenCallParams): Promise<TokenGrant> {
    const { status, text, nowMs } = await call(op, params);
    const credentials = [params.secret, params.token, params.basic?.password];
    try {
      return parseTokenAnswer(op, status, text, {
        nowMs,
        lifetimeSec: params.lifetime ?? defaultLifetime,
        credentials,
      });
    } catch (err) {
      throw op === 'request' && params.graph !== undefined ? asGraphRefusal(err, era, params.graph) : err;
    }
  }

  return {
    era,
    requestToken: (secret, lifetime, options) =>
      grant('request', {
        secret: required(secret, 'secret'),
        lifetime,
        // ≤3.4 takes no graph with a secret (the query form has none); the token is for the secret's graph.
        ...(options?.graph !== undefined && caps.graphWithSecret !== 'none' && { graph: options.graph }),
      }),
    refreshToken: (secret, token, lifetime, options) =>
      grant('refresh', {
        secret: required(secret, 'secret'),
        token: required(token, 'token'),
        lifetime,
        // A refresh on the wire (PUT, before 4.1) keeps the token's own graph; a 4.1+ "refresh" is a mint.
        ...(options?.graph !== undefined && !caps.refreshOnWire && { graph: options.graph }),
      }),
    async deleteToken(secret, token) {
      const params = { secret: required(secret, 'secret'), token: required(token, 'token') };
      const { status, text } = await call('delete', params);
      try {
        checkDeleteAnswer(status, text, [secret, token]);
      } catch (err) {
        // A 4.1+ JWT drop names only the token, so a 400 there means the server does not know it.
        if (!caps.refreshOnWire && err instanceof TigerGraphError && err.kind === 'bad_request' && status === 400) {
          throw new TigerGraphError('token_not_found', `The token does not exist: ${err.message}`, {
            code: err.code,
            status,
            cause: err,
          });
        }
        throw err;
      }
    },
    requestTokenWithPassword: (creds, graph, lifetime) => grant('request', { basic: creds, graph, lifetime }),
    close: async () => {
      await ownAgent?.close();
    },
  };
}

function required(value: string, name: string): string {
  if (typeof value !== 'string' || value === '') throw new TigerGraphError('bad_request', `A ${name} is required`);
  return value;
}

function checkLifetime(lifetime: number | undefined): void {
  if (lifetime !== undefined && !(Number.isInteger(lifetime) && lifetime > 0)) {
    throw new TigerGraphError(
      'bad_request',
      `lifetime must be a positive whole number of seconds, got ${String(lifetime)}`,
    );
  }
}
