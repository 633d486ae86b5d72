import { startSimulator, type SimulatorHandle } from '../../../src/simulator/index.js';
import { makeHome, runInPty, type Watched } from './cli-harness.js';

let sim: SimulatorHandle;
let home: Awaited<ReturnType<typeof makeHome>>;
let env: Record<string, string>;
let running: Watched | undefined;
const ALICE_PASSWORD = 'Wonderland-42';

beforeAll(async () => {
  sim = await startSimulator({ users: [{ name: 'alice', password: ALICE_PASSWORD, graphs: ['social'] }] });
  sim.createSecret({ user: 'alice', graph: 'social', alias: 'alice_s' });
  env = { TG_GSQL_URL: sim.gsqlUrl, TG_RESTPP_URL: sim.restppUrl };
});
afterAll(() => sim.close());
beforeEach(async () => {
  home = await makeHome();
});
afterEach(async () => {
  if (running && running.child.exitCode === null) {
    running.child.kill('SIGKILL');
    await running.exit();
  }
  running = undefined;
  await home.remove();
});

async function finish(w: Watched): Promise<number | null> {
  const code = await w.exit();
  w.child.stdin?.end();
  return code;
}

describe('tgbff prompts on a terminal (pseudo-terminal via script)', () => {
  it('when no credentials are configured, then the user name is asked with echo and the password without', async () => {
    running = runInPty(['secrets', 'list'], { home: home.dir, env });
    await running.waitFor(/Admin user for 127\.0\.0\.1: $/);
    running.child.stdin!.write('alice\r');
    await running.waitFor(/Password for alice@127\.0\.0\.1: $/);
    running.child.stdin!.write(`${ALICE_PASSWORD}\r`);
    expect(await finish(running)).toBe(0);
    const screen = running.output();
    expect(screen).toMatch(/Admin user for 127\.0\.0\.1: alice\r?\n/);
    expect(screen).toMatch(/alice_s\s+\S{3}\*{4}\S{3}\s+social/);
    expect(screen).not.toContain(ALICE_PASSWORD);
  });

  it('when a wrong password is typed, then exit 3 says the credentials came from the prompt', async () => {
    running = runInPty(['secrets', 'list', '--user', 'alice'], { home: home.dir, env });
    await running.waitFor(/Password for alice@127\.0\.0\.1: $/);
    running.child.stdin!.write('Typed-Wrong-123\r');
    expect(await finish(running)).toBe(3);
    expect(running.output()).toContain("refused user 'alice' (credentials from the prompt)");
    expect(running.output()).not.toContain('Typed-Wrong-123');
  });

  it('when Ctrl-C is pressed at the password prompt, then it exits 2 without calling the server', async () => {
    const before = sim.seen().length;
    running = runInPty(['secrets', 'list', '--user', 'alice'], { home: home.dir, env });
    await running.waitFor(/Password for alice@127\.0\.0\.1: $/);
    running.child.stdin!.write('abc\u0003');
    expect(await finish(running)).toBe(2);
    expect(running.output()).toContain('cancelled at the prompt');
    expect(sim.seen().length).toBe(before);
  });

  it('when a token is asked for without TG_SECRET, then the secret is read without echo and the token minted', async () => {
    const { value } = sim.createSecret({ user: 'alice', graph: 'social', alias: 'typed_s' });
    running = runInPty(['token', 'get'], { home: home.dir, env });
    await running.waitFor(/Secret: $/);
    running.child.stdin!.write(`${value}\r`);
    expect(await finish(running)).toBe(0);
    const [, token] = /token:\s+(\S+)/.exec(running.output()) ?? [];
    expect(sim.tokens().map((t) => t.token)).toContain(token);
    expect(running.output()).not.toContain(value);
  });
});
