import type { Readable, Writable } from 'node:stream';

const noop = (): void => undefined;

const prematureClose = (): Error => Object.assign(new Error('Premature close'), { code: 'ERR_STREAM_PREMATURE_CLOSE' });

/**
 * `src.pipe(dst)` with pipeline's guarantees that matter here: resolves once `dst` finished, rejects
 * with whatever broke either side (a side closing early is ERR_STREAM_PREMATURE_CLOSE), and destroys
 * both on failure. stream.pipeline does the same but builds an AbortController per call and aborts it
 * on every success, and that DOMException showed at the top of the relay's CPU profile.
 */
export function streamBody(src: Readable, dst: Writable): Promise<void> {
  return new Promise((resolve, reject) => {
    let settled = false;
    const settle = (err: Error | null): void => {
      if (settled) return;
      settled = true;
      src.off('error', onError).off('close', onSrcClose);
      dst.off('error', onError).off('close', onDstClose).off('finish', onFinish);
      if (err === null) return resolve();
      src.unpipe(dst);
      src.destroy();
      dst.destroy();
      reject(err);
    };
    const onError = (err: Error): void => settle(err);
    const onFinish = (): void => settle(null);
    const onSrcClose = (): void => {
      if (!src.readableEnded) settle(prematureClose());
    };
    const onDstClose = (): void => {
      if (!dst.writableFinished) settle(prematureClose());
    };
    // A late error from either side after we settled must not become an uncaught exception.
    src.on('error', noop);
    dst.on('error', noop);
    src.on('error', onError).on('close', onSrcClose);
    dst.on('error', onError).on('close', onDstClose).on('finish', onFinish);
    src.pipe(dst);
  });
}
