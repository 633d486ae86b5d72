import type { ServerResponse } from 'node:http';
import type { StoreCall } from '../../store/store-call.js';

/**
 * The store call of a request (store/store-call.ts): its signal aborts when the client leaves before the
 * answer is sent in full, never once the answer went out (a touch after it still goes). The signal, an
 * AbortController and one 'close' listener, is made on first read, which only a store command that has to
 * wait for Redis does: a request whose commands are answered at once pays one small object.
 */
export function storeCallOf(res: ServerResponse): StoreCall {
  let signal: AbortSignal | undefined;
  return {
    get signal(): AbortSignal {
      signal ??= leaveSignal(res);
      return signal;
    },
  };
}

/** Whether the client of `res` left before its answer was sent in full. */
const clientLeft = (res: ServerResponse): boolean => res.destroyed && !res.writableFinished;

function leaveSignal(res: ServerResponse): AbortSignal {
  const controller = new AbortController();
  if (clientLeft(res)) controller.abort();
  else if (!res.writableFinished)
    res.once('close', () => {
      if (clientLeft(res)) controller.abort();
    });
  return controller.signal;
}
