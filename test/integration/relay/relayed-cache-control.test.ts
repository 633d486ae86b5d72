import { afterEach, describe, expect, it } from '@jest/globals';
import { once } from 'node:events';
import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startRig, type Rig } from '../../helpers/app-rig.js';

/**
 * Relayed answers are private (issue 42, item 6): one user's data behind a cookie must not be kept by a shared
 * cache in front of the service, so the relay answers `Cache-Control: private, no-store` whatever TigerGraph
 * (or a proxy in front of it) said, unless RELAY_RESPONSE_HEADERS names cache-control.
 */
const PUBLIC = 'public, max-age=3600';

/** Between the service and the simulator: every answer gains a public, cacheable Cache-Control. */
async function cacheablePassThrough(target: string) {
  const upstream = new URL(target);
  const server = createServer((req, res) => {
    const out = httpRequest(
      { host: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, {
          ...answer.headers,
          'cache-control': PUBLIC,
          expires: 'Thu, 01 Jan 2099 00:00:00 GMT',
        });
        answer.pipe(res);
      },
    );
    req.pipe(out);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe('caching of relayed answers', () => {
  let rig: Rig;
  afterEach(() => rig.close());

  it('when TigerGraph answers public, max-age, then the browser gets private, no-store', async () => {
    rig = await startRig({ store: 'memory', dataServer: (sim) => cacheablePassThrough(sim.restppUrl) });
    const agent = await rig.login();
    const res = await agent.get('/api/graph/social/vertices/Person');
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('private, no-store');
  });

  it('when RELAY_RESPONSE_HEADERS names cache-control, then TigerGraph’s own passes', async () => {
    rig = await startRig({
      store: 'memory',
      env: { RELAY_RESPONSE_HEADERS: 'cache-control' },
      dataServer: (sim) => cacheablePassThrough(sim.restppUrl),
    });
    const agent = await rig.login();
    const res = await agent.get('/api/graph/social/vertices/Person');
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe(PUBLIC);
  });
});
