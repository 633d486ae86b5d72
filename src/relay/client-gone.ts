import { EventEmitter } from 'node:events';

/**
 * The abort signal of one relayed request: fires when the browser goes away. undici takes an
 * EventEmitter with `aborted` as its signal; this costs far less per request than an AbortController
 * (whose construction showed in the relay's CPU profile), and undici then fails the call with
 * UND_ERR_ABORTED.
 */
export class ClientGone extends EventEmitter {
  aborted = false;

  abort(): void {
    if (this.aborted) return;
    this.aborted = true;
    this.emit('abort');
  }
}
