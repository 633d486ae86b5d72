import { request, type Dispatcher } from 'undici';
import { TigerGraphError } from './errors.js';

export interface HttpCall {
  url: string;
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  headers?: Record<string, string>;
  body?: string;
}

export interface HttpAnswer {
  status: number;
  text: string;
}

const TIMEOUT_CODES = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'UND_ERR_CONNECT_TIMEOUT', 'ETIMEDOUT']);

/** Transport failures are told apart by err.code only; message texts change between undici releases. */
export function transportErrorKind(err: unknown): 'timeout' | 'unreachable' {
  const code = errorCode(err);
  return code !== undefined && TIMEOUT_CODES.has(code) ? 'timeout' : 'unreachable';
}

function errorCode(err: unknown): string | undefined {
  if (typeof err !== 'object' || err === null) return undefined;
  const { code, errors } = err as { code?: unknown; errors?: unknown };
  if (typeof code === 'string') return code;
  // Connecting to a name with several addresses fails with an AggregateError of per-address errors.
  return Array.isArray(errors) && errors.length > 0 ? errorCode(errors[0]) : undefined;
}

/**
 * One request with one overall deadline covering connect, headers and body. The body is always read
 * to the end (or destroyed by the abort), so sockets go back to the pool on every path.
 */
export async function sendHttp(dispatcher: Dispatcher, call: HttpCall, timeoutMs: number): Promise<HttpAnswer> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  const where = `${call.method} ${safeUrl(call.url)}`;
  try {
    const res = await request(call.url, {
      dispatcher,
      method: call.method,
      headers: call.headers,
      body: call.body,
      signal: controller.signal,
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
    });
    const text = await res.body.text();
    return { status: res.statusCode, text };
  } catch (err) {
    const kind = controller.signal.aborted ? 'timeout' : transportErrorKind(err);
    const what = kind === 'timeout' ? `no answer within ${timeoutMs} ms` : `could not reach the server (${errorCode(err) ?? 'unknown error'})`;
    throw new TigerGraphError(kind, `${where}: ${what}`, { cause: err });
  } finally {
    clearTimeout(timer);
  }
}

/** The query string can hold a secret or token on ≤3.4, so it never goes into a message. */
function safeUrl(url: string): string {
  const q = url.indexOf('?');
  return q === -1 ? url : `${url.slice(0, q)}?…`;
}
