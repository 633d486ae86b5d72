import { randomUUID } from 'node:crypto';
import type { Step } from './step.js';

export const REQUEST_ID_HEADER = 'X-Request-Id';

/** Narrow enough that an id from a trusted proxy can go into logs and upstream headers without escaping. */
const SAFE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Most characters of a client's own id kept in its access line (`clientRequestId`), escapes counted. */
export const CLIENT_REQUEST_ID_MAX = 128;

/** A request's id, and what its client sent as one when that did not become the id. */
export interface RequestIds {
  /** In every line of the request, the answer's `X-Request-Id` and the one TigerGraph is sent. */
  requestId: string;
  /** The caller's `X-Request-Id`, bounded and escaped (`clientRequestIdOf`); undefined if none or it is the id. */
  clientRequestId: string | undefined;
}

/**
 * The `X-Request-Id` of a proxy TRUST_PROXY trusts when it is one safe value (so a trace spans the balancer,
 * this service and TigerGraph), else a fresh UUID. A client's own id never becomes the request id: anyone could
 * otherwise give their requests the id of someone else's (its lines, audit events and TigerGraph's log would
 * read as one request) or one id to all of them. It is kept apart, as `clientRequestId` on the access line, so a
 * frontend's id still finds its request.
 */
export function chooseRequestIds(given: string | string[] | undefined, viaTrustedProxy: boolean): RequestIds {
  const value = Array.isArray(given) ? given.join(', ') : given;
  if (value === undefined || value === '') return { requestId: randomUUID(), clientRequestId: undefined };
  if (viaTrustedProxy && SAFE_ID.test(value)) return { requestId: value, clientRequestId: undefined };
  return { requestId: randomUUID(), clientRequestId: clientRequestIdOf(value) };
}

/**
 * A client's id as its access line keeps it: printable ASCII only (a backslash as `\\`, anything else outside
 * U+0020–U+007E as `\uXXXX`, so no control, C1 or separator character and no lookalike reaches a reader raw),
 * at most CLIENT_REQUEST_ID_MAX characters; a longer one is cut there and ends in `…`. Work is bounded by the
 * cap, not by the header's size.
 */
export function clientRequestIdOf(value: string): string {
  let out = '';
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    const piece =
      code === 0x5c ? '\\\\' : code >= 0x20 && code <= 0x7e ? value[i]! : `\\u${code.toString(16).padStart(4, '0')}`;
    if (out.length + piece.length > CLIENT_REQUEST_ID_MAX) return `${out}…`;
    out += piece;
  }
  return out;
}

/** Echoes the request's id (chosen when its context was made) so a client can quote it. */
export const echoRequestId: Step = (_req, res, ctx) => {
  res.setHeader(REQUEST_ID_HEADER, ctx.requestId);
};
