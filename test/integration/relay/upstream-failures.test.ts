import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import net, { type AddressInfo } from 'node:net';
import { rawRequest } from '../../helpers/raw-request.js';
import { counterValue, startRelayApp, startUpstream, type Upstream } from './relay-harness.js';

async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('relay upstream failures', () => {
  let upstream: Upstream;

  beforeAll(async () => {
    upstream = await startUpstream();
  });
  afterAll(async () => {
    await upstream.close();
  });

  it('when the upstream sends no headers within upstreamTimeoutMs, then 504 upstream_timeout and the timeout is counted', async () => {
    upstream.handler = () => undefined; // holds the request
    const relay = await startRelayApp(upstream.url, { upstreamTimeoutMs: 300 });
    try {
      const answer = await rawRequest(relay.port, '/api/echo');

      expect(answer.status).toBe(504);
      expect(answer.code).toBe('upstream_timeout');
      expect(await counterValue(relay.metrics, 'upstreamErrors', 'timeout')).toBe(1);
      const durations = await relay.metrics.relayDuration.get();
      expect(
        durations.values.find((v) => v.metricName?.endsWith('_count') && v.labels.status_class === '5xx')?.value,
      ).toBe(1);
    } finally {
      await relay.close();
    }
  });

  it('when nothing listens on the upstream port, then 502 upstream_unavailable', async () => {
    const relay = await startRelayApp(`http://127.0.0.1:${await closedPort()}`);
    try {
      const answer = await rawRequest(relay.port, '/api/version');

      expect(answer.status).toBe(502);
      expect(answer.code).toBe('upstream_unavailable');
      expect(await counterValue(relay.metrics, 'upstreamErrors', 'unavailable')).toBe(1);
    } finally {
      await relay.close();
    }
  });

  it('when the upstream closes the connection without answering, then 502 upstream_unavailable', async () => {
    upstream.handler = (req) => req.socket.destroy();
    const relay = await startRelayApp(upstream.url);
    try {
      const answer = await rawRequest(relay.port, '/api/echo');

      expect(answer.status).toBe(502);
      expect(answer.code).toBe('upstream_unavailable');
    } finally {
      await relay.close();
    }
  });

  it('when the upstream answers normally, then the browser gets its status and body and a 2xx duration is recorded', async () => {
    upstream.handler = (_req, res) => {
      res.statusCode = 202;
      res.end('{"accepted":true}');
    };
    const relay = await startRelayApp(upstream.url);
    try {
      const answer = await rawRequest(relay.port, '/api/echo');

      expect(answer.status).toBe(202);
      expect(answer.body).toBe('{"accepted":true}');
      const durations = await relay.metrics.relayDuration.get();
      expect(
        durations.values.find(
          (v) => v.metricName?.endsWith('_count') && v.labels.status_class === '2xx' && v.labels.method === 'GET',
        )?.value,
      ).toBe(1);
    } finally {
      await relay.close();
    }
  });
});
