import {
  call as codegenCall,
  CodegenError,
  readJson as codegenReadJson,
  serviceUrl as codegenServiceUrl,
} from '@tigergraph-bff/codegen';
import { CliError, type ExitCodeValue } from './cli-error.js';

/**
 * HTTP to a running tigergraph-bff (or a data server): the URL check, the call and the bounded JSON read are
 * @tigergraph-bff/codegen's (packages/codegen/src/read-listing.ts: it may import nothing of the service), here
 * with its failures as the CLI's own errors. The exit numbers are the same on both sides.
 */

/** A CodegenError as the CLI's error (same exit code, code and message); anything else as it is. */
export function asCliError(err: unknown): unknown {
  return err instanceof CodegenError
    ? new CliError(err.exitCode as ExitCodeValue, err.code, err.message, { cause: err.cause })
    : err;
}

/** Runs `work`, its CodegenError thrown as a CliError. */
export async function asCli<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    throw asCliError(err);
  }
}

/**
 * The service's URL, refused before the secret is read when plain http would carry that secret across a
 * network: the service answers such a login 403 https_required anyway, but only after the secret went out.
 */
export function serviceUrl(raw: string): string {
  try {
    return codegenServiceUrl(raw);
  } catch (err) {
    throw asCliError(err);
  }
}

/** The body as JSON, refusing more than a listing's bound (16 MiB); a refusal names the server and its answer. */
export const readJson = (res: Response, what: string): Promise<unknown> => asCli(() => codegenReadJson(res, what));

/** One request to a server, its failure to answer as exit 6 naming `what`. */
export const call = (url: string, init: RequestInit, timeoutMs: number, what: string): Promise<Response> =>
  asCli(() => codegenCall(url, init, timeoutMs, what));
