import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startSimulator, type SimulatorHandle } from '../../../src/simulator/index.js';
import { untilMatch, WAIT_MS } from '../../helpers/wait.js';
import { START_MS, startServiceProcess, type ServiceProcess } from '../../helpers/service-process.js';
import { CLI } from '../cli/cli-harness.js';

const MAIN = path.resolve(process.env.TGBFF_MAIN ?? 'dist/main.js');

let dir: string;
let service: ServiceProcess | undefined;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'tgbff-dotenv-'));
});
afterEach(async () => {
  await service?.kill();
  service = undefined;
  await rm(dir, { recursive: true, force: true });
});

/** Runs a script to its exit in `dir` with only PATH (and `env`) set; for starts that are meant to fail. */
async function runToExit(script: string, args: string[], env: Record<string, string> = {}) {
  const child = spawn(process.execPath, [script, ...args], {
    cwd: dir,
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr.on('data', (c: Buffer) => (out += c.toString()));
  child.stdin.end();
  const timer = setTimeout(() => child.kill('SIGKILL'), WAIT_MS); // a start meant to fail: a hung one ends here
  const [code] = (await once(child, 'close')) as [number | null];
  clearTimeout(timer);
  return { code, out };
}

// The shutdown line carries the effective SHUTDOWN_TIMEOUT_MS; 'exit' can come before the last output is read.
// One answered request first: by then the signal handlers, installed right after "listening", are in place.
const shutdownTimeoutOf = async (s: ServiceProcess): Promise<number> => {
  expect((await fetch(`${s.url}/healthz`)).status).toBe(200);
  s.proc.kill('SIGTERM');
  const [, timeoutMs] = await untilMatch(
    'the shutdown log line',
    () => s.output(),
    /"timeoutMs":(\d+)[^\n]*"msg":"shutting down"/,
  );
  return Number(timeoutMs);
};

describe('.env in the working directory', () => {
  it('when the service starts where a .env sets a key, then the setting applies and the start says the file was read', async () => {
    await writeFile(path.join(dir, '.env'), '# local settings\nSHUTDOWN_TIMEOUT_MS=1234\n');
    service = await startServiceProcess({}, START_MS, { cwd: dir });
    expect(service.output()).toContain(`"file":"${path.join(dir, '.env')}"`);
    expect(await shutdownTimeoutOf(service)).toBe(1234);
  });

  it('when a key is set both in the environment and in .env, then the environment wins', async () => {
    // LOG_LEVEL=silent from .env would hide the "listening" line the helper waits for: starting at all proves info won.
    await writeFile(path.join(dir, '.env'), 'SHUTDOWN_TIMEOUT_MS=1234\nLOG_LEVEL=silent\nPORT=1\n');
    service = await startServiceProcess({ SHUTDOWN_TIMEOUT_MS: '4321' }, START_MS, { cwd: dir });
    expect(service.port).not.toBe(1);
    expect(await shutdownTimeoutOf(service)).toBe(4321);
  });

  it('when .env is malformed, then the start fails naming the file and line, without echoing the line', async () => {
    await writeFile(path.join(dir, '.env'), 'PORT=0\nSESSION_SECRET hunter2-not-an-assignment\n');
    const r = await runToExit(MAIN, []);
    expect(r.code).toBe(1);
    expect(r.out).toContain(`tigergraph-bff: ${path.join(dir, '.env')}, line 2: expected KEY=value`);
    expect(r.out).not.toContain('hunter2');
  });
});

describe('.env for the tgbff CLI', () => {
  let sim: SimulatorHandle;
  beforeAll(async () => {
    sim = await startSimulator();
  });
  afterAll(() => sim.close());

  it('when --dotenv names a file with the data server and the secret, then tgbff token get uses them', async () => {
    const secret = sim.createSecret({ graph: 'social', alias: 'dotenv_cli' }).value;
    await writeFile(
      path.join(dir, 'tg.env'),
      `TG_RESTPP_URL=${sim.restppUrl}\nTG_GSQL_URL=${sim.gsqlUrl}\nTG_SECRET=${secret}\n`,
    );
    const r = await runToExit(CLI, ['token', 'get', '--json', '--dotenv', 'tg.env'], { HOME: dir });
    expect(r.code).toBe(0);
    const token = (JSON.parse(r.out) as { token: string }).token;
    expect(sim.tokens().map((t) => t.token)).toContain(token);
  });

  it('when a .env sits in the working directory and no --dotenv names it, then the CLI reads nothing from it', async () => {
    const secret = sim.createSecret({ graph: 'social', alias: 'dotenv_ignored' }).value;
    await writeFile(path.join(dir, '.env'), `TG_RESTPP_URL=${sim.restppUrl}\nTG_SECRET=${secret}\n`);
    const before = sim.tokens().length;
    const r = await runToExit(CLI, ['token', 'get', '--json'], { HOME: dir });
    expect(r.code).toBe(2);
    expect(JSON.parse(r.out)).toEqual({
      error: { code: 'usage', message: 'no secret given: set TG_SECRET or pipe the secret on standard input' },
    });
    expect(sim.tokens().length).toBe(before);
  });

  it('when the --dotenv is malformed, then tgbff exits 2 naming the file', async () => {
    await writeFile(path.join(dir, '.env'), '"TG_SECRET"=x\n');
    const r = await runToExit(CLI, ['token', 'get', '--json', '--dotenv', '.env'], { HOME: dir });
    expect(r.code).toBe(2);
    expect(JSON.parse(r.out)).toEqual({
      error: {
        code: 'usage',
        message: `${path.join(dir, '.env')}, line 1: expected KEY=value (KEY: letters, digits and _, not starting with a digit)`,
      },
    });
  });

  it('when --dotenv names a missing file, then tgbff exits 2 naming it', async () => {
    const r = await runToExit(CLI, ['token', 'get', '--json', '--dotenv', 'nope.env'], { HOME: dir });
    expect(r.code).toBe(2);
    expect(JSON.parse(r.out)).toEqual({
      error: { code: 'usage', message: `--dotenv ${path.join(dir, 'nope.env')} cannot be read (ENOENT)` },
    });
  });
});
