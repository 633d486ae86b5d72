import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startSimulator, type SimulatorHandle } from '../../../src/simulator/index.js';
import { json, jsonError, makeHome, runCli } from './cli-harness.js';

/**
 * Issue 21, item 3: stored admin credentials go only to the server they were stored for. A "trap" on
 * another loopback address (127.0.0.2) stands in for a server the user never meant to trust and records
 * every Authorization header it is sent; the simulator on 127.0.0.1 is the real admin server.
 */
interface Trap {
  url: string;
  seen: string[];
  close(): Promise<void>;
}

async function startTrap(): Promise<Trap> {
  const seen: string[] = [];
  const server: Server = createServer((req, res) => {
    seen.push(req.headers.authorization ?? '(none)');
    req.resume();
    res.writeHead(401, { 'Content-Type': 'application/json' }).end('{"error":true,"message":"trap"}');
  });
  server.listen(0, '127.0.0.2');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.2:${(server.address() as AddressInfo).port}`,
    seen,
    close: () => new Promise((r) => server.close(() => r())),
  };
}

const PASSWORD = 'Admin-Password-Stored-0600';
let sim: SimulatorHandle;
let trap: Trap;
let home: Awaited<ReturnType<typeof makeHome>>;

beforeAll(async () => {
  sim = await startSimulator({ users: [{ name: 'ops', password: PASSWORD, graphs: ['social'] }] });
  sim.createSecret({ user: 'ops', graph: 'social', alias: 'ops_s' });
  trap = await startTrap();
});
afterAll(async () => {
  await trap.close();
  await sim.close();
});
beforeEach(async () => {
  home = await makeHome();
  trap.seen.length = 0;
});
afterEach(() => home.remove());

const adminCalls = (): number => sim.seen().filter((r) => r.port === 'gsql').length;
const stored = () =>
  JSON.stringify({ gsqlUrl: sim.gsqlUrl, restppUrl: sim.restppUrl, username: 'ops', password: PASSWORD });

describe('tgbff sends stored credentials only to the host they were stored for', () => {
  it('when a .env in the working directory points TG_GSQL_URL at a trap, then it is not read and the config file password goes to its own server', async () => {
    await home.writeFile('.config/tgbff/config.json', stored(), 0o600);
    await home.writeFile('.env', `TG_GSQL_URL=${trap.url}\nTG_RESTPP_URL=${trap.url}\n`, 0o644);
    const before = adminCalls();
    const r = await runCli(['secrets', 'list', '--json'], { home: home.dir, env: {} });
    expect(trap.seen).toEqual([]);
    expect(r.code).toBe(0);
    expect((json(r).secrets as Array<{ alias: string }>).map((s) => s.alias)).toEqual(['ops_s']);
    expect(adminCalls()).toBeGreaterThan(before);
  });

  it('when the environment itself points TG_GSQL_URL elsewhere, then the config file password stays home: exit 2 says whose it is', async () => {
    await home.writeFile('.config/tgbff/config.json', stored(), 0o600);
    const r = await runCli(['secrets', 'list', '--json'], { home: home.dir, env: { TG_GSQL_URL: trap.url } });
    expect(trap.seen).toEqual([]);
    expect(r.code).toBe(2);
    expect(jsonError(r).code).toBe('no_credentials');
    expect(jsonError(r).message).toContain(`its credentials are for ${sim.gsqlUrl}, not ${trap.url}`);
    expect(r.stderr).not.toContain(PASSWORD);
  });

  it('when netrc has only a `default` entry and the admin server is a trap, then the entry is not used without --netrc-default', async () => {
    const netrc = await home.writeFile('.netrc', `default login ops password ${PASSWORD}\n`, 0o600);
    const r = await runCli(['secrets', 'list', '--json'], { home: home.dir, env: { TG_GSQL_URL: trap.url } });
    expect(trap.seen).toEqual([]);
    expect(r.code).toBe(2);
    expect(jsonError(r).message).toContain(
      `the default entry of netrc file ${netrc} (it serves any host only with --netrc-default)`,
    );
  });

  it('when the user opts in to the netrc default entry (--netrc-default or TGBFF_NETRC_DEFAULT=1), then it serves the admin server in use', async () => {
    await home.writeFile('.netrc', `default login ops password ${PASSWORD}\n`, 0o600);
    const ways: Array<{ args: string[]; env: Record<string, string> }> = [
      { args: ['--netrc-default'], env: {} },
      { args: [], env: { TGBFF_NETRC_DEFAULT: '1' } },
    ];
    for (const opt of ways) {
      const r = await runCli(['secrets', 'list', '--json', ...opt.args], {
        home: home.dir,
        env: { TG_GSQL_URL: sim.gsqlUrl, ...opt.env },
      });
      expect(r.code).toBe(0);
    }
    expect(trap.seen).toEqual([]);
  });

  it('when TG_PASSWORD and --user are set and a .env points at a trap, then the password goes only to the configured server', async () => {
    await home.writeFile(
      '.config/tgbff/config.json',
      JSON.stringify({ gsqlUrl: sim.gsqlUrl, username: 'someone-else', password: 'unused-here' }),
      0o600,
    );
    await home.writeFile('.env', `TG_GSQL_URL=${trap.url}\n`, 0o644);
    const r = await runCli(['secrets', 'list', '--json', '--user', 'ops'], {
      home: home.dir,
      env: { TG_PASSWORD: PASSWORD },
    });
    expect(trap.seen).toEqual([]);
    expect(r.code).toBe(0);
    const last = sim
      .seen()
      .filter((s) => s.port === 'gsql')
      .at(-1);
    expect(Buffer.from(String(last?.headers.authorization).replace(/^Basic /, ''), 'base64').toString()).toBe(
      `ops:${PASSWORD}`,
    );
  });

  it.each(['620', '602'])(
    'when the config file is mode %s (others can change where its password goes), then it is refused and nothing is sent',
    async (mode) => {
      const file = await home.writeFile('.config/tgbff/config.json', stored(), parseInt(mode, 8));
      const before = adminCalls();
      const r = await runCli(['secrets', 'list'], { home: home.dir, env: {} });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(
        `refusing config file ${file}: other users can change it (mode ${mode}); run: chmod 600 ${file}`,
      );
      expect(adminCalls()).toBe(before);
      expect(trap.seen).toEqual([]);
    },
  );

  it('when --verbose is given, then stderr names the admin server, where its URL came from and the credential source, never the password', async () => {
    const config = await home.writeFile('.config/tgbff/config.json', stored(), 0o600);
    await home.writeFile('.netrc', `default login ops password ${PASSWORD}\n`, 0o600);
    const r = await runCli(['secrets', 'list', '--verbose'], { home: home.dir, env: { TG_GSQL_URL: sim.gsqlUrl } });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(`tgbff: admin server ${sim.gsqlUrl} (from TG_GSQL_URL)`);
    expect(r.stderr).toContain(`tgbff: not used: the default entry of netrc file ${home.dir}/.netrc`);
    expect(r.stderr).toContain(`tgbff: credentials: user 'ops' from config file ${config}`);
    expect(r.stdout + r.stderr).not.toContain(PASSWORD);
  });

  it('when a stored password is refused, then the error names the server and the source it came from', async () => {
    const config = await home.writeFile(
      '.config/tgbff/config.json',
      JSON.stringify({ gsqlUrl: sim.gsqlUrl, username: 'ops', password: 'Wrong-Stored-Pass' }),
      0o600,
    );
    const r = await runCli(['secrets', 'list'], { home: home.dir, env: {} });
    expect(r.code).toBe(3);
    expect(r.stderr).toContain(
      `the admin server at ${sim.gsqlUrl} refused user 'ops' (credentials from config file ${config})`,
    );
    expect(r.stderr).not.toContain('Wrong-Stored-Pass');
  });
});
