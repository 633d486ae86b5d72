import { EventEmitter } from 'node:events';

/** Why a relayed request stopped early: the browser left, or its deadline (counted from arrival) passed. */
export type CancelReason = 'client' | 'deadline';

/**
 * The abort signal of one relayed request. undici takes an EventEmitter with `aborted` as its signal,
 * which costs far less per request than an AbortController (whose construction showed in the relay's
 * CPU profile); undici then fails the call with UND_ERR_ABORTED, also while it waits in the pool's queue.
 */
export class RelayCancel extends EventEmitter {
  aborted = false;
  reason: CancelReason | null = null;

  abort(reason: CancelReason): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    this.emit('abort');
  }

  /**
   * `work`, or a rejection as soon as the request is cancelled, whichever comes first: a step that does
   * not take the signal itself (a token refresh, a body read) cannot hold the answer past the deadline.
   * `work` goes on in the background; `dispose` gets its value if it arrives too late.
   */
  race<T>(work: Promise<T>, dispose?: (late: T) => void): Promise<T> {
    if (this.aborted) {
      work.then(
        (v) => dispose?.(v),
        () => undefined,
      );
      return Promise.reject(cancelled());
    }
    return new Promise<T>((resolve, reject) => {
      const onAbort = (): void => reject(cancelled());
      this.once('abort', onAbort);
      work.then(
        (value) => {
          this.off('abort', onAbort);
          if (this.aborted) dispose?.(value);
          else resolve(value);
        },
        (err: unknown) => {
          this.off('abort', onAbort);
          reject(err);
        },
      );
    });
  }
}

const cancelled = (): Error => Object.assign(new Error('relayed request cancelled'), { code: 'UND_ERR_ABORTED' });
