import { execFile } from 'node:child_process';
import { cp, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { startRig, type Rig } from '../../helpers/app-rig.js';
import { installTarballs, npm, pack, seedConsumer } from '../../helpers/consumer-project.js';

// Issue 26: the browser SDK packed and installed into an empty project (no dependencies come with it), and
// `tgbff codegen` writing that project's query module from the simulator's demo graph, through the running
// service and straight from the data server with a token; the module compiles under tsc --strict and runs
// against the service (in Node, whose fetch keeps no cookies: the fixture carries a one-origin jar).
const run = promisify(execFile);
const ROOT = path.resolve('.');
const BROWSER = path.join(ROOT, 'packages/browser');
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
  files = packed.files;
  await cp(FIXTURE, consumer, { recursive: true });
  await seedConsumer(consumer, { name: 'browser-consumer', runtime: [], dev: ['typescript'] });
  await installTarballs(consumer, [packed.tarball]);
  rig = await startRig({ env: { LOGIN_RATE_LIMIT: '1000' }, label: 'browser-pack' });
  url = await rig.listen();
}, 300_000); // pack and an offline install: 2 min was not enough on a slow, busy machine
afterAll(async () => {
  await rig?.close();
  await rm(work, { recursive: true, force: true });
});

const codegen = (args: string[], env: Record<string, string>) =>
  run(process.execPath, [CLI, 'codegen', '--graph', 'social', ...args], {
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
    expect(installed).toEqual(['@tigergraph-bff/browser']);
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
      TG_VERSION: rig.sim.version,
    });
    expect([direct.stderr, 'code' in direct ? direct.code : 0]).toEqual(['', 0]);
    const body = (text: string) => text.split('\n').slice(1).join('\n');
    const written = await readFile(path.join(consumer, 'queries.ts'), 'utf8');
    expect(body(direct.stdout)).toBe(body(written));
    for (const q of ['hello', 'friends', 'stream', 'sleep'])
      expect(written).toContain(`export function ${q}<T = unknown>(`);
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
      first: true,
      refused: 'REST-30000',
      aborted: 'TimeoutError',
      after: 'not_authenticated',
    });
  });

  it('when codegen has no way to read the listing or a bad graph name, then it says so with a usage exit', async () => {
    const none = await codegen([], {});
    expect(['code' in none ? none.code : 0, none.stderr]).toEqual([2, expect.stringContaining('--service URL')]);
    const bad = await run(process.execPath, [CLI, 'codegen', '--graph', 'x;y', '--service', url], {
      env: { PATH: process.env.PATH, HOME: work },
    }).catch((err: { code: number; stderr: string }) => err);
    expect(['code' in bad ? bad.code : 0, bad.stderr]).toEqual([2, expect.stringContaining('--graph')]);
  });
});
