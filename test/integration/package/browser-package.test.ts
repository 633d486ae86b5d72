import { execFile } from 'node:child_process';
import { cp, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { startRig, type Rig } from '../../helpers/app-rig.js';
import { installTarballs, npm, pack, seedConsumer } from '../../helpers/consumer-project.js';

// Issue 26: the browser SDK packed and installed into an empty project (no dependencies come with it), and
// the code generator writing that project's query module from the simulator's demo graph, through the running
// service and straight from the data server with a token; the module compiles under tsc --strict and runs
// against the service (in Node, whose fetch keeps no cookies: the fixture carries a one-origin jar).
// Issue 41: the generator is @tigergraph-bff/codegen, packed and installed beside the SDK as a frontend
// project would (its bin `tgbff-codegen`), with a tgbff-codegen.json declaring a result type; the service's
// own `tgbff codegen` writes the same module.
const run = promisify(execFile);
const ROOT = path.resolve('.');
const BROWSER = path.join(ROOT, 'packages/browser');
const CODEGEN = path.join(ROOT, 'packages/codegen');
const FIXTURE = path.join(ROOT, 'test/fixtures/browser-consumer');
const CLI = path.join(ROOT, 'dist/cli/main.js');

let work: string;
let consumer: string;
let files: string[];
let rig: Rig;
let url: string;
beforeAll(async () => {
  work = await mkdtemp(path.join(tmpdir(), 'tgbff-browser-pack-'));
  consumer = path.join(work, 'consumer');
  // packages/browser/dist was built by jest's globalSetup (scripts/build.mjs).
  const packed = await pack(BROWSER, work);
  const generator = await pack(CODEGEN, work);
  files = packed.files;
  await cp(FIXTURE, consumer, { recursive: true });
  await seedConsumer(consumer, { name: 'browser-consumer', runtime: [], dev: ['typescript'] });
  await installTarballs(consumer, [packed.tarball, generator.tarball]);
  rig = await startRig({ env: { LOGIN_RATE_LIMIT: '1000' }, label: 'browser-pack' });
  url = await rig.listen();
}, 300_000); // pack and an offline install: 2 min was not enough on a slow, busy machine
afterAll(async () => {
  await rig?.close();
  await rm(work, { recursive: true, force: true });
});

/** The installed package's bin, run in the consumer (where its tgbff-codegen.json is). */
const codegen = (args: string[], env: Record<string, string>) =>
  run(path.join(consumer, 'node_modules/.bin/tgbff-codegen'), ['--graph', 'social', ...args], {
    cwd: consumer,
    env: { PATH: process.env.PATH, HOME: work, ...env },
  }).catch((err: { code: number; stdout: string; stderr: string }) => err);
/** The service's CLI, which runs the same generator. */
const serviceCodegen = (args: string[], env: Record<string, string>) =>
  run(process.execPath, [CLI, 'codegen', '--graph', 'social', ...args], {
    cwd: consumer,
    env: { PATH: process.env.PATH, HOME: work, ...env },
  }).catch((err: { code: number; stdout: string; stderr: string }) => err);

describe('@tigergraph-bff/browser, packed and installed, with a generated query module', () => {
  it('when packed, then the tarball holds the ESM build, declarations, README and LICENSE, and nothing else', () => {
    for (const f of ['dist/index.js', 'dist/index.d.ts', 'dist/client.js', 'README.md', 'LICENSE', 'package.json'])
      expect([f, files.includes(f)]).toEqual([f, true]);
    expect(files.filter((f) => !/^(dist\/[\w-]+\.(js|d\.ts)$|README\.md$|LICENSE$|package\.json$)/.test(f))).toEqual(
      [],
    );
  });

  it('when installed, then nothing else is: no runtime dependency, sideEffects false, ESM', async () => {
    const pkg = JSON.parse(await readFile(path.join(BROWSER, 'package.json'), 'utf8')) as Record<string, unknown>;
    expect([pkg.dependencies, pkg.sideEffects, pkg.type]).toEqual([undefined, false, 'module']);
    const { stdout } = await npm(['ls', '--omit=dev', '--all', '--parseable'], consumer);
    const installed = stdout
      .split('\n')
      .filter(Boolean)
      .map((p) => path.relative(path.join(consumer, 'node_modules'), p))
      .filter((p) => p !== '' && !p.startsWith('..'));
    expect(installed).toEqual(['@tigergraph-bff/browser', '@tigergraph-bff/codegen']);
  });

  it('when codegen reads through the service and straight from the data server, then both write the same module', async () => {
    const through = await codegen(['--service', url, '--out', path.join(consumer, 'queries.ts')], {
      TG_SECRET: rig.secret,
    });
    expect([through.stderr, 'code' in through ? through.code : 0]).toEqual(['', 0]);
    const token = await run(process.execPath, [CLI, 'token', 'get', '--json', '--restpp-url', rig.sim.restppUrl], {
      env: { PATH: process.env.PATH, HOME: work, TG_SECRET: rig.secret, TG_VERSION: rig.sim.version },
    });
    const direct = await codegen(['--restpp-url', rig.sim.restppUrl], {
      TG_TOKEN: (JSON.parse(token.stdout) as { token: string }).token,
    });
    expect([direct.stderr, 'code' in direct ? direct.code : 0]).toEqual(['', 0]);
    const body = (text: string) => text.split('\n').slice(1).join('\n');
    const written = await readFile(path.join(consumer, 'queries.ts'), 'utf8');
    expect(body(direct.stdout)).toBe(body(written));
    for (const q of ['Hello', 'Friends', 'Stream', 'Sleep'])
      expect(written).toContain(`export function ${q.toLowerCase()}<T = ${q}Result>(`);
    // Declared once in the fixture's tgbff-codegen.json; the others are unknown rows.
    expect(written).toContain('export type HelloResult = { greeting: string };');
    expect(written).toContain('export type SleepResult = unknown;');
    // The fixture asks for the detached variants too ("async": true), compiled below against the SDK's types.
    expect(written).toContain('export function sleepAsync(');
    // The service's CLI runs the same generator, reading the project's tgbff-codegen.json as well.
    const viaService = await serviceCodegen(['--service', url], { TG_SECRET: rig.secret });
    expect([viaService.stderr, 'code' in viaService ? viaService.code : 0]).toEqual(['', 0]);
    expect(body(viaService.stdout)).toBe(body(written));
  });

  it('when the installed generator is asked for --help and --version, then it answers both', async () => {
    const help = await codegen(['--help'], {});
    expect(help.stdout).toContain('Usage: tgbff-codegen --graph NAME');
    const version = await codegen(['--version'], {});
    expect(version.stdout.trim()).toBe(
      (JSON.parse(await readFile(path.join(CODEGEN, 'package.json'), 'utf8')) as { version: string }).version,
    );
  });

  it('when the generated module and an app using it compile with tsc --strict, then no error (and wrong params are)', async () => {
    // --skipDefaultLibCheck: TypeScript's own lib files (lib.dom.d.ts is half the check) are not checked
    // themselves; the package's declarations, the module and the app are, against them, as before.
    const tsc = await run(
      process.execPath,
      ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.json', '--skipDefaultLibCheck'],
      { cwd: consumer },
    ).catch((err: { stdout: string; stderr: string }) => err);
    expect(`${tsc.stdout}${tsc.stderr}`).toBe('');
  });

  it('when the compiled app runs against the service, then typed queries answer, refusals are typed, aborts abort', async () => {
    const { stdout } = await run(process.execPath, ['out/app.js'], {
      cwd: consumer,
      env: { PATH: process.env.PATH, BFF_URL: url, TG_SECRET: rig.secret },
    });
    expect(JSON.parse(stdout)).toEqual({
      greeting: 'Hello, typed!',
      fallback: 'Hello, World!',
      first: true,
      refused: 'REST-30000',
      aborted: 'TimeoutError',
      after: 'not_authenticated',
    });
  });

  it('when codegen has no way to read the listing or a bad graph name, then it says so with a usage exit', async () => {
    const none = await codegen([], {});
    expect(['code' in none ? none.code : 0, none.stderr]).toEqual([2, expect.stringContaining('--service URL')]);
    const bad = await run(
      path.join(consumer, 'node_modules/.bin/tgbff-codegen'),
      ['--graph', 'x;y', '--service', url],
      {
        cwd: consumer,
        env: { PATH: process.env.PATH, HOME: work },
      },
    ).catch((err: { code: number; stderr: string }) => err);
    expect(['code' in bad ? bad.code : 0, bad.stderr]).toEqual([2, expect.stringContaining('--graph')]);
  });
});
