import { PassThrough, Writable } from 'node:stream';
import { streamBody } from '../../../src/relay/stream-body.js';

/** A destination that keeps what it is given, optionally slowly (to exercise backpressure). */
function sink(opts: { delayMs?: number; highWaterMark?: number } = {}) {
  const chunks: Buffer[] = [];
  const stream = new Writable({
    highWaterMark: opts.highWaterMark ?? 16 * 1024,
    write(chunk: Buffer, _enc, done) {
      chunks.push(chunk);
      if (opts.delayMs) setTimeout(done, opts.delayMs);
      else done();
    },
  });
  return { stream, text: () => Buffer.concat(chunks).toString() };
}

describe('streamBody', () => {
  test('when the source ends, then it resolves once the destination finished with every byte', async () => {
    const src = new PassThrough();
    const dst = sink({ delayMs: 2, highWaterMark: 4 });
    const done = streamBody(src, dst.stream);
    for (let i = 0; i < 20; i++) src.write(`chunk${i};`);
    src.end();
    await done;
    expect(dst.stream.writableFinished).toBe(true);
    expect(dst.text()).toBe(Array.from({ length: 20 }, (_, i) => `chunk${i};`).join(''));
  });

  test('when the source fails midway, then it rejects with that error and destroys the destination', async () => {
    const src = new PassThrough();
    const dst = sink();
    const done = streamBody(src, dst.stream);
    src.write('partial');
    src.destroy(Object.assign(new Error('socket hang up'), { code: 'UND_ERR_SOCKET' }));
    await expect(done).rejects.toMatchObject({ code: 'UND_ERR_SOCKET' });
    expect(dst.stream.destroyed).toBe(true);
  });

  test('when the destination goes away first (the browser left), then it rejects as a premature close and destroys the source', async () => {
    const src = new PassThrough();
    const dst = sink();
    const done = streamBody(src, dst.stream);
    src.write('partial');
    dst.stream.destroy();
    await expect(done).rejects.toMatchObject({ code: 'ERR_STREAM_PREMATURE_CLOSE' });
    expect(src.destroyed).toBe(true);
  });

  test('when the source is closed without an error or an end, then it rejects instead of hanging', async () => {
    const src = new PassThrough();
    const dst = sink();
    const done = streamBody(src, dst.stream);
    src.destroy();
    await expect(done).rejects.toMatchObject({ code: 'ERR_STREAM_PREMATURE_CLOSE' });
  });

  test('when either side errors after success, then nothing is thrown', async () => {
    const src = new PassThrough();
    const dst = sink();
    const done = streamBody(src, dst.stream);
    src.end('all');
    await done;
    src.emit('error', new Error('late'));
    dst.stream.emit('error', new Error('late'));
    expect(dst.text()).toBe('all');
  });
});
