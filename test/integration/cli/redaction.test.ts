import { createServer, type IncomingMessage, type Server } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { jsonError, makeHome, runCli } from './cli-harness.js';

// A stand-in data server whose every answer is a refusal quoting words that look like credentials
// ("Wrong", "password", "token", "secret") next to the actual values the CLI sent.
const SECRET = 'rong';
const TOKEN = 'p9l2g8u3ktm0n6d1qhs4rvz7x5w1a0c8';
const MESSAGE = `Wrong password or secret: secret '${SECRET}' cannot refresh token ${TOKEN}. Tokens and secrets are checked.`;

let server: Server;
let url: string;
let home: Awaited<ReturnType<typeof makeHome>>;
const seen: string[] = [];

beforeAll(async () => {
  home = await makeHome();
  server = createServer((req: IncomingMessage, res) => {
    seen.push(`${req.method} ${req.url}`);
    req.resume();
    res.writeHead(400, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: true, code: 'REST-1101', message: MESSAGE }));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.close();
  await home.remove();
});

describe('tgbff error output, as a child process against a server that quotes what it was sent', () => {
  it('when the refusal says "Wrong password", "token" and "secret", then the words survive and only the values are masked', async () => {
    const r = await runCli(['token', 'refresh', '--json', '--token', TOKEN], {
      home: home.dir,
      env: { TG_RESTPP_URL: url, TG_GSQL_URL: url, TG_VERSION: '3.9.3', TG_SECRET: SECRET },
    });
    expect(r.code).toBe(2);
    const error = jsonError(r);
    expect(error.code).toBe('bad_request');
    expect(error.message).toContain(
      "Wrong password or secret: secret '****' cannot refresh token p9l****0c8. Tokens and secrets are checked.",
    );
    expect(r.stderr).not.toContain(TOKEN);
    expect(r.stderr).not.toMatch(/\brong\b/);
    expect(seen).toHaveLength(1);
  });
});
