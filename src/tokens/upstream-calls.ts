import type { Metrics } from '../observability/metrics.js';
import { traced, type Tracing } from '../observability/tracing.js';
import type { Audit } from '../observability/audit.js';
import { TigerGraphError, type TokenApi, type TokenGrant } from '@tigergraph-bff/client';
import { mapUpstreamError, type TokenPhase } from './map-upstream-error.js';

/** The three upstream token calls the broker makes, counted and with errors already mapped. */
export interface UpstreamCalls {
  /** `graph` (a login's): TigerGraph checks the secret against it (3.5+), a refusal is graph_not_found. */
  mint(secret: string, phase: TokenPhase, graph?: string): Promise<TokenGrant>;
  /**
   * PUT with new expiry = now + lifetime; a token that is gone upstream is replaced by a POST. `graph` (the
   * session's): every mint of a session is for the graph its login named, re-mints and 4.1+ refreshes too.
   */
  refresh(secret: string, token: string, graph?: string): Promise<TokenGrant>;
  /** DELETE; a token that is already gone, or died with its secret, counts as deleted. */
  remove(secret: string, token: string): Promise<void>;
}

const kindOf = (err: unknown): string | undefined => (err instanceof TigerGraphError ? err.kind : undefined);

/** Failures of the server itself, in the relay's labels; refused credentials or unknown tokens are answers. */
const FAILURE_KINDS: Partial<Record<string, 'timeout' | 'unavailable' | 'protocol'>> = {
  timeout: 'timeout',
  unreachable: 'unavailable',
  protocol: 'protocol',
};

export function createUpstreamCalls(deps: {
  api: TokenApi;
  lifetimeSec: number;
  metrics?: Metrics;
  tracing?: Tracing;
  audit?: Audit;
}): UpstreamCalls {
  const { api, lifetimeSec, metrics, tracing, audit } = deps;
  // 4.1+ (JWT era) asks the admin server for tokens (POST /gsql/v1/tokens); earlier versions the data server.
  const server = api.era === 'jwt' ? 'admin' : 'data';
  const mapped = (err: unknown, phase: TokenPhase): unknown => mapUpstreamError(err, phase, server);
  const EVENTS = { mint: 'token.minted', refresh: 'token.refreshed', delete: 'token.deleted' } as const;
  const audited = (op: 'mint' | 'refresh' | 'delete', result: 'ok' | 'error') =>
    audit?.emit({ event: EVENTS[op], result });

  const failed = (op: 'mint' | 'refresh' | 'delete', err: unknown) => {
    metrics?.tokenCalls.inc({ op, result: 'error' });
    audited(op, 'error');
    const kind = FAILURE_KINDS[kindOf(err) ?? ''];
    if (kind) metrics?.upstreamErrors.inc({ kind });
  };

  async function counted<T>(op: 'mint' | 'refresh' | 'delete', call: () => Promise<T>): Promise<T> {
    try {
      const value = await traced(tracing, `token.${op}`, call, 'client');
      metrics?.tokenCalls.inc({ op, result: 'ok' });
      audited(op, 'ok');
      return value;
    } catch (err) {
      failed(op, err);
      throw err;
    }
  }

  async function mint(secret: string, phase: TokenPhase, graph?: string): Promise<TokenGrant> {
    try {
      return await counted('mint', () =>
        graph === undefined ? api.requestToken(secret, lifetimeSec) : api.requestToken(secret, lifetimeSec, { graph }),
      );
    } catch (err) {
      throw mapped(err, phase);
    }
  }

  return {
    mint,
    async refresh(secret, token, graph) {
      try {
        return await counted('refresh', () =>
          graph === undefined
            ? api.refreshToken(secret, token, lifetimeSec)
            : api.refreshToken(secret, token, lifetimeSec, { graph }),
        );
      } catch (err) {
        if (kindOf(err) === 'token_not_found') return mint(secret, 'session', graph);
        throw mapped(err, 'session');
      }
    },
    async remove(secret, token) {
      try {
        await traced(tracing, 'token.delete', () => api.deleteToken(secret, token), 'client');
        metrics?.tokenCalls.inc({ op: 'delete', result: 'ok' });
        audited('delete', 'ok');
      } catch (err) {
        const kind = kindOf(err);
        // Dropping a secret invalidates its tokens, so a rejected secret leaves nothing to delete.
        const gone = kind === 'token_not_found' || kind === 'invalid_credentials';
        if (!gone) {
          failed('delete', err);
          throw mapped(err, 'session');
        }
        metrics?.tokenCalls.inc({ op: 'delete', result: 'ok' });
        audited('delete', 'ok');
      }
    },
  };
}
