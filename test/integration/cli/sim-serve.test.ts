import { spawn } from 'node:child_process';
import { CLI, makeHome, runCli, watch, type Watched } from './cli-harness.js';

let home: Awaited<ReturnType<typeof makeHome>>;
let running: Watched | undefined;

beforeAll(async () => {
  home = await makeHome();
});
afterEach(async () => {
  if (running && running.child.exitCode === null && running.child.signalCode === null) {
    running.child.kill('SIGKILL');
    await running.exit();
  }
  running = undefined;
});
afterAll(() => home.remove());

const start = (args: string[], env: Record<string, string> = {}): Watched =>
  watch(
    spawn(process.execPath, [CLI, ...args], {
      env: { PATH: process.env.PATH ?? '', HOME: home.dir, ...env },
      cwd: home.dir,
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
  );

describe('tgbff sim and serve, as child processes', () => {
  it('when "tgbff sim" starts on free ports, then other tgbff commands work against it and SIGTERM stops it with 0', async () => {
    running = start(['sim', '--restpp-port', '0', '--gsql-port', '0', '--version', '3.9.3']);
    const [, restpp] = await running.waitFor(/RESTPP \(data\):\s+(\S+)/);
    const [, gsql] = await running.waitFor(/GSQL \(admin\):\s+(\S+)/);
    const [, demo] = await running.waitFor(/Demo secret:\s+(\S+)/);
    const env = { TG_GSQL_URL: gsql!, TG_RESTPP_URL: restpp!, TG_PASSWORD: 'tigergraph', TG_SECRET: demo! };
    expect((await runCli(['secrets', 'list', '--user', 'tigergraph'], { home: home.dir, env })).code).toBe(0);
    expect((await runCli(['token', 'get'], { home: home.dir, env })).code).toBe(0);
    running.child.kill('SIGTERM');
    expect(await running.exit()).toBe(0);
  });

  it('when "tgbff sim" gets a flag the simulator does not know, then it exits 2 with the simulator\'s message', async () => {
    const r = await runCli(['sim', '--bogus'], { home: home.dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('simulator:');
    expect(r.stderr).toContain('--bogus');
  });

  it('when "tgbff serve" starts, then the service answers /healthz and SIGTERM shuts it down with 0', async () => {
    running = start(['serve'], { PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info' });
    const [, port] = await running
      .waitFor(/"port":(\d+)[^\n]*"msg":"listening"|"msg":"listening"[^\n]*"port":(\d+)/, 20000)
      .then((m) => [m[0], m[1] ?? m[2]]);
    const res = await fetch(`http://127.0.0.1:${port}/healthz`);
    expect(res.status).toBe(200);
    await res.arrayBuffer();
    running.child.kill('SIGTERM');
    expect(await running.exit()).toBe(0);
  });
});
