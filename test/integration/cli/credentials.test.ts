import { startSimulator, type SimulatorHandle } from '../../../src/simulator/index.js';
import { json, jsonError, makeHome, runCli } from './cli-harness.js';

let sim: SimulatorHandle;
let home: Awaited<ReturnType<typeof makeHome>>;
let env: Record<string, string>;
const ALICE_PASSWORD = 'Wonderland-42';

beforeAll(async () => {
  sim = await startSimulator({ users: [{ name: 'alice', password: ALICE_PASSWORD, graphs: ['social'] }] });
  sim.createSecret({ user: 'alice', graph: 'social', alias: 'alice_s' });
  sim.createSecret({ user: 'tigergraph', graph: 'social', alias: 'tg_s' });
  env = { TG_GSQL_URL: sim.gsqlUrl, TG_RESTPP_URL: sim.restppUrl };
});
afterAll(() => sim.close());
beforeEach(async () => {
  home = await makeHome();
});
afterEach(() => home.remove());

/** The user the admin server saw on the last GSQL call, from its basic-auth header. */
function lastAdminUser(): string {
  const last = sim
    .seen()
    .filter((r) => r.port === 'gsql')
    .at(-1);
  const header = String(last?.headers['authorization'] ?? '');
  return Buffer.from(header.replace(/^Basic /, ''), 'base64')
    .toString()
    .split(':')[0]!;
}

const aliases = (doc: Record<string, unknown>): string[] =>
  (doc.secrets as Array<{ alias: string }>).map((s) => s.alias);

describe('tgbff admin credentials, as a child process against the simulator', () => {
  it('when --user and TG_PASSWORD are given, then the server sees that user', async () => {
    const r = await runCli(['secrets', 'list', '--json', '--user', 'alice'], {
      home: home.dir,
      env: { ...env, TG_PASSWORD: ALICE_PASSWORD },
    });
    expect(r.code).toBe(0);
    expect(aliases(json(r))).toEqual(['alice_s']);
    expect(lastAdminUser()).toBe('alice');
  });

  it('when ~/.netrc has an entry for the admin host, then it is used and beats the config file', async () => {
    await home.writeFile(
      '.netrc',
      `machine elsewhere login x password y\nmachine 127.0.0.1\n  login alice\n  password "${ALICE_PASSWORD}"\n`,
      0o600,
    );
    await home.writeFile('.config/tgbff/config.json', '{"username":"tigergraph","password":"tigergraph"}', 0o600);
    const r = await runCli(['secrets', 'list', '--json'], { home: home.dir, env });
    expect(r.code).toBe(0);
    expect(aliases(json(r))).toEqual(['alice_s']);
    expect(lastAdminUser()).toBe('alice');
  });

  it('when NETRC names a file, then its entry for the host is used instead of ~/.netrc', async () => {
    await home.writeFile('.netrc', 'machine 127.0.0.1 login tigergraph password tigergraph', 0o600);
    const file = await home.writeFile('alt/netrc', `default login alice password ${ALICE_PASSWORD}`, 0o600);
    const r = await runCli(['secrets', 'list', '--json'], { home: home.dir, env: { ...env, NETRC: file } });
    expect(r.code).toBe(0);
    expect(lastAdminUser()).toBe('alice');
  });

  it('when netrc only has entries for other hosts, then it is skipped and, with nothing else, exit 2 lists the ways', async () => {
    await home.writeFile('.netrc', 'machine tg.example login alice password whatever', 0o600);
    const before = sim.seen().length;
    const r = await runCli(['secrets', 'list', '--json'], { home: home.dir, env });
    expect(r.code).toBe(2);
    expect(jsonError(r)).toMatchObject({ code: 'no_credentials' });
    expect(jsonError(r).message).toContain('a netrc entry for machine 127.0.0.1');
    expect(sim.seen().length).toBe(before);
  });

  it('when the config file is mode 600, then its credentials and URLs are used', async () => {
    const config = { gsqlUrl: sim.gsqlUrl, restppUrl: sim.restppUrl, username: 'alice', password: ALICE_PASSWORD };
    await home.writeFile('.config/tgbff/config.json', JSON.stringify(config), 0o600);
    const r = await runCli(['secrets', 'list', '--json'], { home: home.dir, env: {} });
    expect(r.code).toBe(0);
    expect(aliases(json(r))).toEqual(['alice_s']);
    expect(lastAdminUser()).toBe('alice');
  });

  it('when TGBFF_CONFIG names a config file, then that one is used', async () => {
    const file = await home.writeFile(
      'cfg.json',
      JSON.stringify({ gsqlUrl: sim.gsqlUrl, username: 'alice', password: ALICE_PASSWORD }),
      0o400,
    );
    const r = await runCli(['secrets', 'list', '--json'], { home: home.dir, env: { TGBFF_CONFIG: file } });
    expect(r.code).toBe(0);
    expect(lastAdminUser()).toBe('alice');
  });

  it('when the config file is mode 644, then it is refused with exit 2 before any request, even with other credentials', async () => {
    const file = await home.writeFile(
      '.config/tgbff/config.json',
      JSON.stringify({ username: 'alice', password: ALICE_PASSWORD }),
      0o644,
    );
    const before = sim.seen().length;
    const r = await runCli(['secrets', 'list', '--user', 'alice'], {
      home: home.dir,
      env: { ...env, TG_PASSWORD: ALICE_PASSWORD },
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      `refusing config file ${file}: other users can read it (mode 644); run: chmod 600 ${file}`,
    );
    expect(r.stderr).not.toContain(ALICE_PASSWORD);
    expect(sim.seen().length).toBe(before);
  });

  it('when netrc holds a wrong password, then exit 3 names the user and the netrc file but not the password', async () => {
    const file = await home.writeFile('.netrc', 'machine 127.0.0.1 login alice password Not-Her-Password-9', 0o600);
    const r = await runCli(['secrets', 'list'], { home: home.dir, env });
    expect(r.code).toBe(3);
    expect(r.stderr).toContain(`refused user 'alice' (credentials from netrc file ${file} (machine 127.0.0.1))`);
    expect(r.stdout + r.stderr).not.toContain('Not-Her-Password-9');
  });

  it('when the config file holds a wrong password, then exit 3 says it came from the config file', async () => {
    const file = await home.writeFile(
      '.config/tgbff/config.json',
      JSON.stringify({ username: 'alice', password: 'Nope-Nope-77' }),
      0o600,
    );
    const r = await runCli(['secrets', 'list', '--json'], { home: home.dir, env });
    expect(r.code).toBe(3);
    expect(jsonError(r)).toMatchObject({ code: 'bad_credentials' });
    expect(jsonError(r).message).toContain(`credentials from config file ${file}`);
    expect(r.stderr).not.toContain('Nope-Nope-77');
  });

  it('when stdin is not a terminal and nothing supplies credentials, then exit 2 without hanging for a prompt', async () => {
    const r = await runCli(['secrets', 'list', '--user', 'alice'], { home: home.dir, env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('no admin credentials found');
  });
});
