import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { TigerGraphConnection } from '../../../packages/client/src/connection.js';
import { createTokenApi } from '../../../packages/client/src/restpp-client.js';
import { createSecretApi } from '../../../packages/client/src/secret-api.js';
import { poll } from '../../helpers/wait.js';
import { expectKind } from './fixtures.js';

const SECRET = 'topsecretvalue0123456789abcdefgh';
const TIMEOUT_MS = 300;
// Generous: the point is "bounded, not hanging", not how fast this machine is.
const BOUND_MS = 5000;

interface Silent {
  url: string;
  hits: () => number;
  close: () => Promise<void>;
}

/** A loopback server that accepts requests and never answers them (or answers headers, then stalls). */
async function silentServer(mode: 'no-headers' | 'stalled-body'): Promise<Silent> {
  const sockets = new Set<Socket>();
  const held: ServerResponse[] = [];
  let hits = 0;
  const server: Server = createServer((req, res) => {
    hits += 1;
    req.resume();
    held.push(res);
    if (mode === 'stalled-body') {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
      res.write('{"error":false,');
    }
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    hits: () => hits,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** A port nothing listens on: bind an ephemeral one, then close it. */
async function closedPortUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}

async function timed<T>(fn: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const start = performance.now();
  const value = await fn();
  return { value, ms: performance.now() - start };
}

describe.each(['no-headers', 'stalled-body'] as const)('when the server never finishes answering (%s)', (mode) => {
  let silent: Silent;

  beforeEach(async () => {
    silent = await silentServer(mode);
  });

  afterEach(async () => {
    await silent.close();
  });

  /**
   * One token call against the silent server, and how many of its requests the server saw. A starved test
   * process can run the call's timer before its own server has read the request (Node runs expired timers
   * before it polls sockets): the call then never left, and the set-up did not hold. So a call whose request
   * the server has not seen 2 s after it failed is made again, at most three times in all.
   */
  async function hungTokenCall(version: string) {
    for (let attempt = 1; ; attempt += 1) {
      const before = silent.hits();
      const api = createTokenApi({ restppUrl: silent.url, gsqlUrl: silent.url, version, timeoutMs: TIMEOUT_MS });
      try {
        const { value: err, ms } = await timed(() => expectKind(api.requestToken(SECRET), 'timeout'));
        // Not seen within 2 s: tried again below (poll's timeout is that answer, not a failure).
        await poll(async () => silent.hits() > before, 2000, 'the request to reach the server').catch(() => undefined);
        if (silent.hits() > before || attempt === 3) return { err, ms, hits: silent.hits() - before };
      } finally {
        await api.close();
      }
    }
  }

  test.each(['3.4.0', '3.9.3', '4.1.0'])(
    'when a %s token call hangs, then it fails as timeout within the bound, without the secret in the message',
    async (version) => {
      const { err, ms, hits } = await hungTokenCall(version);
      expect(ms).toBeLessThan(BOUND_MS);
      expect(err.message).not.toContain(SECRET);
      expect(err.status).toBeUndefined();
      // One request, not tried again.
      expect(hits).toBe(1);
    },
    20_000,
  );

  test('when a GSQL statement hangs, then the secret call fails as timeout', async () => {
    const secrets = createSecretApi({ gsqlUrl: silent.url, version: '3.9.3', timeoutMs: TIMEOUT_MS });
    try {
      const { ms } = await timed(() =>
        expectKind(secrets.listSecrets({ username: 'u', password: 'p4ssw0rd' }, 'social'), 'timeout'),
      );
      expect(ms).toBeLessThan(BOUND_MS);
    } finally {
      await secrets.close();
    }
  });

  test('when a data call hangs, then the connection call fails as timeout', async () => {
    const conn = new TigerGraphConnection({
      restppUrl: silent.url,
      gsqlUrl: silent.url,
      version: '3.9.3',
      timeoutMs: TIMEOUT_MS,
      apiToken: SECRET,
    });
    try {
      const { value: err, ms } = await timed(() => expectKind(conn.echo(), 'timeout'));
      expect(ms).toBeLessThan(BOUND_MS);
      expect(err.message).not.toContain(SECRET);
    } finally {
      await conn.close();
    }
  });
});

describe('when nothing listens on the port', () => {
  test.each(['3.4.0', '3.9.3', '4.1.0'])(
    'when a %s token call is made, then it fails as unreachable, naming the errno but not the secret',
    async (version) => {
      const url = await closedPortUrl();
      const api = createTokenApi({ restppUrl: url, gsqlUrl: url, version, timeoutMs: 2000 });
      try {
        const err = await expectKind(api.deleteToken(SECRET, 'tokentokentokentokentokentoken12'), 'unreachable');
        expect(err.message).toContain('ECONNREFUSED');
        expect(err.message).not.toContain(SECRET);
        expect(err.message).not.toContain('tokentokentokentokentokentoken12');
      } finally {
        await api.close();
      }
    },
  );

  test('when the connection calls the admin and data servers, then both fail as unreachable', async () => {
    const url = await closedPortUrl();
    const conn = new TigerGraphConnection({ restppUrl: url, gsqlUrl: url, version: '3.9.3', graphname: 'social' });
    try {
      await expectKind(conn.getSecrets(), 'unreachable');
      await expectKind(conn.getVersion(), 'unreachable');
    } finally {
      await conn.close();
    }
  });
});
