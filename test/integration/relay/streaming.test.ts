import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { createHash } from 'node:crypto';
import http from 'node:http';
import { elapse, until, WAIT_MS } from '../../helpers/wait.js';
import { startRelayApp, startUpstream, type RelayApp, type Upstream } from './relay-harness.js';

/**
 * Resolves when `release()` is called or after `ms` (so a broken relay fails the test instead of hanging
 * it): how long to wait for the release, never a property, so as long as a wait anywhere.
 */
function gate(ms = WAIT_MS): { wait: Promise<void>; release: () => void } {
  let release!: () => void;
  const wait = new Promise<void>((resolve) => {
    release = resolve;
    setTimeout(resolve, ms).unref();
  });
  return { wait, release };
}

describe('relay streaming', () => {
  let upstream: Upstream;
  let relay: RelayApp;

  beforeAll(async () => {
    upstream = await startUpstream();
    // Long upstream timeout: cancellation must come from the browser leaving, not from a timeout.
    relay = await startRelayApp(upstream.url, { maxBodyBytes: 1024, upstreamTimeoutMs: 30_000 });
  });
  beforeEach(() => {
    upstream.seen.length = 0;
  });
  afterAll(async () => {
    await relay.close();
    await upstream.close();
  });

  it('when the upstream streams a large chunked answer, then the first chunk reaches the browser before the upstream has finished', async () => {
    const firstSeen = gate();
    let upstreamFinished = false;
    upstream.handler = (_req, res) => {
      res.setHeader('content-type', 'application/json');
      res.write(`{"results":[${'"x",'.repeat(16 * 1024)}`);
      void firstSeen.wait.then(() => {
        upstreamFinished = true;
        res.end('"y"]}');
      });
    };
    let finishedWhenFirstChunkArrived: boolean | undefined;
    let received = 0;

    await new Promise<void>((resolve, reject) => {
      http
        .get({ host: '127.0.0.1', port: relay.port, path: '/api/query/social/big', agent: false }, (res) => {
          res.on('data', (c: Buffer) => {
            if (finishedWhenFirstChunkArrived === undefined) {
              finishedWhenFirstChunkArrived = upstreamFinished;
              firstSeen.release();
            }
            received += c.length;
          });
          res.on('end', resolve);
        })
        .on('error', reject);
    });

    expect(finishedWhenFirstChunkArrived).toBe(false);
    expect(received).toBe(`{"results":[${'"x",'.repeat(16 * 1024)}"y"]}`.length);
  });

  it('when the browser uploads a chunked body within maxBodyBytes, then the upstream gets every byte, and only after the upload ended', async () => {
    let uploadFinished = false;
    let finishedWhenUpstreamStarted: boolean | undefined;
    const body = Buffer.alloc(1024);
    for (let i = 0; i < body.length; i++) body[i] = i % 251;
    upstream.handler = (_req, res, seen) => {
      res.end(JSON.stringify({ length: seen.body.length, sha: createHash('sha256').update(seen.body).digest('hex') }));
    };
    upstream.onStart = () => {
      finishedWhenUpstreamStarted = uploadFinished;
    };

    let req!: http.ClientRequest;
    const answered = new Promise<string>((resolve, reject) => {
      req = http.request(
        { host: '127.0.0.1', port: relay.port, path: '/api/query/social/load', method: 'POST', agent: false },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve(Buffer.concat(chunks).toString()));
        },
      );
      req.on('error', reject);
    });
    req.write(body.subarray(0, 100));
    await elapse(1000, 'a pause mid-upload, in which the relay must not start the upstream request');
    uploadFinished = true;
    req.end(body.subarray(100));
    const answer = await answered;
    upstream.onStart = null;

    // Held until complete: a slow upload ties up its own socket only, never a pooled upstream connection.
    expect(finishedWhenUpstreamStarted).toBe(true);
    expect(JSON.parse(answer)).toEqual({ length: body.length, sha: createHash('sha256').update(body).digest('hex') });
  });

  it('when the browser goes away mid-response, then the upstream request is cancelled', async () => {
    const upstreamClosed = gate();
    let closedByRelay = false;
    upstream.handler = (req, res) => {
      res.write('{"results":[');
      req.socket.once('close', () => {
        closedByRelay = true;
        upstreamClosed.release();
      });
    };

    await new Promise<void>((resolve) => {
      const req = http.get({ host: '127.0.0.1', port: relay.port, path: '/api/echo', agent: false }, (res) => {
        res.once('data', () => {
          req.destroy();
          resolve();
        });
      });
      req.on('error', () => undefined);
    });
    await upstreamClosed.wait;

    expect(closedByRelay).toBe(true);
  });

  it('when the browser goes away before the upstream answered, then the upstream request is cancelled', async () => {
    const upstreamClosed = gate();
    let closedByRelay = false;
    upstream.handler = () => undefined; // never answers
    upstream.onStart = (req) =>
      req.socket.once('close', () => {
        closedByRelay = true;
        upstreamClosed.release();
      });

    const req = http.get({ host: '127.0.0.1', port: relay.port, path: '/api/echo', agent: false });
    req.on('error', () => undefined);
    await until('the request to reach the upstream', () => upstream.seen.length > 0, { intervalMs: 10 });
    req.destroy();
    await upstreamClosed.wait;
    upstream.onStart = null;

    expect(closedByRelay).toBe(true);
  });

  it('when the upstream dies mid-response, then the browser sees a cut connection, not a complete answer', async () => {
    // The upstream dies once the first bytes reached the browser: the answer has surely begun.
    const firstBytes = gate();
    upstream.handler = (_req, res) => {
      res.setHeader('content-type', 'application/json');
      res.write('{"results":[1,2,');
      void firstBytes.wait.then(() => res.socket?.destroy());
    };

    const outcome = await new Promise<string>((resolve) => {
      http
        .get({ host: '127.0.0.1', port: relay.port, path: '/api/echo', agent: false }, (res) => {
          res.on('data', () => firstBytes.release());
          res.on('end', () => resolve('complete'));
          res.on('error', () => resolve('cut'));
          res.on('aborted', () => resolve('cut'));
        })
        .on('error', () => resolve('cut'));
    });

    expect(outcome).toBe('cut');
  });
});
