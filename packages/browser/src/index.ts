// @tigergraph-bff/browser: the tigergraph-bff service seen from a page (or from Node 20's fetch).
export { createClient, TgbffClient } from './client.js';
export type {
  CallOptions,
  ClientOptions,
  Credentials,
  DetachedOptions,
  ListedSession,
  LoginResult,
  Methods,
  QueryOptions,
  QueryStatus,
  RelayInit,
  Session,
} from './client.js';
export { BffError, TigerGraphError } from './errors.js';
export { ERROR_STATUS, isServiceErrorCode, SESSION_ENDING_CODES } from './error-codes.js';
export type { ErrorCode, ServiceErrorCode } from './error-codes.js';
export { SessionEvent } from './events.js';
export type { SessionEndReason, SessionEventMap } from './events.js';
export { queryString } from './query-params.js';
export type { ParamValue, QueryParams, VertexRef } from './query-params.js';
export type { RetryPolicy } from './retry.js';
