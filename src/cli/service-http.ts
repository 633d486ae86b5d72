import { CliError, ExitCode, usageError } from './cli-error.js';

/** HTTP to a running tigergraph-bff (or a data server): the URL check, the call and the bounded JSON read. */

/** A listing of thousands of queries is a few MiB; more is not a listing. */
const MAX_LISTING_BYTES = 16 * 1024 * 1024;

/** Loopback hosts, where plain http never leaves the machine (the service itself allows http logins there). */
const LOOPBACK = /^(localhost|127(\.\d{1,3}){3}|\[::1\])$/i;

/**
 * The service's URL, refused before the secret is read when plain http would carry that secret across a
 * network: the service answers such a login 403 https_required anyway, but only after the secret went out.
 */
export function serviceUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw usageError(`--service must be the service's http(s) URL, got '${raw}'`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw usageError(`--service must be the service's http(s) URL, got '${raw}'`);
  if (url.protocol === 'http:' && !LOOPBACK.test(url.hostname))
    throw usageError(
      `--service ${url.origin} is plain http to another machine: the secret would cross the network in clear; use https`,
    );
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}

/** The body as JSON, refusing more than MAX_LISTING_BYTES; a refusal names the server and its answer. */
export async function readJson(res: Response, what: string): Promise<unknown> {
  const declared = Number(res.headers.get('Content-Length'));
  if (declared > MAX_LISTING_BYTES) {
    await res.body?.cancel();
    throw new CliError(ExitCode.other, 'listing_too_large', `${what} answered ${declared} bytes, more than a listing`);
  }
  // Read chunk by chunk: an answer without Content-Length is cut at the bound, not buffered whole.
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  for await (const chunk of (res.body ?? []) as AsyncIterable<Uint8Array>) {
    bytes += chunk.byteLength;
    if (bytes > MAX_LISTING_BYTES) {
      await res.body?.cancel().catch(() => undefined);
      throw new CliError(ExitCode.other, 'listing_too_large', `${what} answered more than a listing`);
    }
    chunks.push(chunk);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new CliError(ExitCode.other, 'unexpected_response', `${what} answered ${res.status} with no JSON`);
  }
}

/** One request to a server, its failure to answer as exit 6 naming `what`. */
export async function call(url: string, init: RequestInit, timeoutMs: number, what: string): Promise<Response> {
  try {
    return await fetch(url, { ...init, signal: AbortSignal.timeout(timeoutMs), redirect: 'manual' });
  } catch (err) {
    throw new CliError(ExitCode.unreachable, 'unreachable', `${what} did not answer: ${String(err)}`, { cause: err });
  }
}
