/**
 * What a caller hands a store operation beside its arguments. `signal` is aborted when the caller no longer
 * wants the answer (the request's client left before it was sent). A Redis command of that operation still
 * waiting for its connection (a failover being ridden out, store/redis/failover-wait.ts) then stops waiting,
 * frees its place among the waiters, and is never sent; a command already sent runs its course. The memory
 * stores never wait and ignore it.
 *
 * Read only when a command has to wait, and the object is passed on as it is, so a caller may make the signal
 * in a getter on first read: the HTTP layer does (http/session/leave-signal.ts), so a request whose store
 * commands never wait builds no AbortController.
 */
export interface StoreCall {
  readonly signal?: AbortSignal | undefined;
}
