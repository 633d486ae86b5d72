import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { until } from '../../helpers/wait.js';

/**
 * Issue 21, item 8: the simulator's /__sim/ surface (live tokens, new secrets, faults) answered anyone who
 * could connect, also when compose runs the simulator on 0.0.0.0. Each case starts the compiled simulator
 * CLI (TGBFF_SIM_CLI runs another build) and asks for the live tokens from this machine.
 */
const SIM_CLI = path.resolve(process.env.TGBFF_SIM_CLI ?? 'dist/simulator/cli.js');

interface Sim {
  child: ChildProcess;
  out: () => string;
  restpp: string;
}

async function startSim(args: string[]): Promise<Sim> {
  const child = spawn(process.execPath, [SIM_CLI, '--restpp-port', '0', '--gsql-port', '0', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (out += c.toString()));
  // Its RESTPP port once printed; an exit before that ends the wait too.
  const { port } = await until('the simulator to print its RESTPP port', () => {
    const printed = /RESTPP \(data\): +http:\/\/[^:]+:(\d+)/.exec(out)?.[1];
    if (printed !== undefined || child.exitCode !== null) return { port: printed };
    return undefined;
  }).catch((err: Error) => {
    throw new Error(`simulator did not start (${err.message}):\n${out}`);
  });
  if (port === undefined) throw new Error(`simulator exited with ${child.exitCode} before listening:\n${out}`);
  return { child, out: () => out, restpp: `http://127.0.0.1:${port}` };
}

const running: Sim[] = [];
let dir: string | undefined;
afterEach(async () => {
  for (const sim of running.splice(0)) {
    if (sim.child.exitCode !== null) continue;
    sim.child.kill('SIGKILL');
    await once(sim.child, 'exit');
  }
  if (dir) await rm(dir, { recursive: true, force: true });
  dir = undefined;
});

const tokens = (sim: Sim, headers: Record<string, string> = {}) => fetch(`${sim.restpp}/__sim/tokens`, { headers });

describe("the simulator's /__sim/ control surface (real processes)", () => {
  it('when the simulator listens on 0.0.0.0 without a key, then the surface is off: no tokens, no secrets, no faults', async () => {
    const sim = await startSim(['--host', '0.0.0.0']);
    running.push(sim);
    const res = await tokens(sim);
    expect(res.status).toBe(404);
    expect(((await res.json()) as { error: string }).error).toContain(
      "the simulator's control surface is off: it listens on 0.0.0.0",
    );
    const secret = await fetch(`${sim.restpp}/__sim/secrets`, { method: 'POST', body: '{}' });
    expect(secret.status).toBe(404);
    await secret.arrayBuffer();
    const faults = await fetch(`${sim.restpp}/__sim/faults`, { method: 'POST', body: '{"latencyMs":5000}' });
    expect(faults.status).toBe(404);
    await faults.arrayBuffer();
    expect(sim.out()).toContain(
      'Sim admin:       off (listening on 0.0.0.0, beyond loopback; --admin-key turns it on)',
    );
  });

  it('when it listens on 0.0.0.0 with --admin-key @file, then only X-Sim-Key with that key opens it', async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'tgbff-simkey-'));
    await writeFile(path.join(dir, 'key'), 'sim-admin-key-0123456789\n');
    const sim = await startSim(['--host', '0.0.0.0', '--admin-key', `@${path.join(dir, 'key')}`]);
    running.push(sim);
    const none = await tokens(sim);
    expect(none.status).toBe(401);
    await none.arrayBuffer();
    const wrong = await tokens(sim, { 'X-Sim-Key': 'sim-admin-key-012345678X' });
    expect(wrong.status).toBe(401);
    await wrong.arrayBuffer();
    const right = await tokens(sim, { 'X-Sim-Key': 'sim-admin-key-0123456789' });
    expect(right.status).toBe(200);
    expect(Array.isArray(await right.json())).toBe(true);
    expect(sim.out()).not.toContain('sim-admin-key-0123456789');
  });

  it('when it listens on loopback only, then the surface stays open as before (bench and tests rely on it)', async () => {
    const sim = await startSim(['--host', '127.0.0.1']);
    running.push(sim);
    const res = await tokens(sim);
    expect(res.status).toBe(200);
    await res.arrayBuffer();
  });
});
