import type { Dispatcher } from 'undici';
import { TigerGraphError } from './errors.js';
import { sendHttp } from './http.js';
import { readEnvelope } from './parse-token-response.js';
import { redact } from './redact.js';
import { trim } from './token-requests.js';

export interface DataClientOptions {
  restppUrl: string;
  dispatcher: Dispatcher;
  timeoutMs: number;
  /** The connection's current token, read on every call so setToken takes effect at once. */
  token: () => string | undefined;
}

export type QueryParams = Record<string, string | number | boolean | ReadonlyArray<string | number>>;

export interface DataClient {
  /** GET a RESTPP path; resolves with the parsed body, throws a TigerGraphError on `error: true`. */
  get(path: string, params?: QueryParams): Promise<Record<string, unknown>>;
}

const AUTH_CODES = new Set(['REST-10016', 'REST-10018', 'REST-10019']);

export function createDataClient(opts: DataClientOptions): DataClient {
  const base = trim(opts.restppUrl);
  return {
    async get(path, params) {
      const token = opts.token();
      const headers: Record<string, string> = {};
      if (token !== undefined) headers['authorization'] = `Bearer ${token}`;
      const answer = await sendHttp(
        opts.dispatcher,
        { method: 'GET', url: `${base}${path}${toQuery(params)}`, headers },
        opts.timeoutMs,
      );
      const env = readEnvelope(answer.text);
      if (env.body !== undefined && !env.error && answer.status < 300) return env.body;
      const message = `GET ${path} failed: ${redact(env.message, [token]) || `HTTP ${answer.status}`}`;
      const options = { code: env.code, status: answer.status };
      if (answer.status === 401 || answer.status === 403 || (env.code !== undefined && AUTH_CODES.has(env.code))) {
        throw new TigerGraphError('invalid_credentials', message, options);
      }
      if (env.body === undefined)
        throw new TigerGraphError('protocol', `GET ${path}: not a JSON answer (HTTP ${answer.status})`, options);
      throw new TigerGraphError(answer.status >= 500 ? 'protocol' : 'bad_request', message, options);
    },
  };
}

/** RESTPP takes repeated keys for list parameters (p=a&p=b). */
function toQuery(params: QueryParams | undefined): string {
  if (params === undefined) return '';
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    for (const item of Array.isArray(value) ? value : [value]) query.append(key, String(item));
  }
  const text = query.toString();
  return text === '' ? '' : `?${text}`;
}

/** GET /version answers a text table; the product line holds e.g. "release_3.9.3_09-12-2023". */
export function parseVersionMessage(message: string): string | undefined {
  const product = message.split('\n').find((line) => /^\s*product\b/.test(line)) ?? message;
  return /release_(\d+\.\d+\.\d+)/.exec(product)?.[1] ?? /(\d+\.\d+\.\d+)/.exec(product)?.[1];
}
