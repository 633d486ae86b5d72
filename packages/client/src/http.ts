import { request, type Dispatcher } from 'undici';
import { TigerGraphError } from './errors.js';
import { classifyTransportFailure, transportErrorCode } from './transport-failure.js';

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

/** The library's kinds for the shared transport classification; `unreachable` is its public name. */
export function transportErrorKind(err: unknown): 'timeout' | 'unreachable' | 'protocol' {
  const failure = classifyTransportFailure(err);
  return failure === 'unavailable' ? 'unreachable' : failure;
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
    const code = transportErrorCode(err) ?? (err instanceof Error ? err.name : 'unknown error');
    const what =
      kind === 'timeout'
        ? `no answer within ${timeoutMs} ms`
        : kind === 'unreachable'
          ? `could not reach the server (${code})`
          : `unusable answer (${code})`;
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
