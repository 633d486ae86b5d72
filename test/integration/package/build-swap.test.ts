/**
 * `npm run build` (scripts/build.mjs) in a copy of the sources: the CLI bin is executable after every
 * build, a simulator running from dist/ keeps answering while dist/ is rebuilt under it, and a build that
 * fails leaves dist/ as it was. A copy, so this file's builds never swap the dist/ other tests spawn.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { cp, mkdtemp, readdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const ROOT = path.resolve('.');
let work: string;
let simulator: ChildProcess | undefined;

/** The copy's service build: see beforeAll. */
const fast = () => ({
  extends: './tsconfig.json',
  compilerOptions: { rootDir: 'src', outDir: 'dist', types: [], noCheck: true, sourceMap: false, paths: {} },
  files: ['src/cli/cli-error.ts', 'src/simulator/dates.ts'],
  include: [] as string[],
});

const build = () =>
  run(process.execPath, ['scripts/build.mjs'], { cwd: work }).then(
    () => 0,
    (err: { code?: number }) => err.code ?? 1,
  );
const binMode = async () => (await stat(path.join(work, 'dist/cli/main.js'))).mode & 0o777;
/** The bin run as a shell would run it: through its shebang, which needs the executable bit. */
const runBin = () => run(path.join(work, 'dist/cli/main.js'), ['--help'], { cwd: work });

beforeAll(async () => {
  work = await mkdtemp(path.join(tmpdir(), 'tgbff-build-'));
  for (const entry of [
    'package.json',
    'tsconfig.json',
    'src',
    'scripts',
    'docs/openapi.yaml',
    'packages/client/src',
    'packages/client/package.json',
    'packages/browser/src',
    'packages/browser/package.json',
    'packages/codegen/src',
    'packages/codegen/package.json',
  ]) {
    await cp(path.join(ROOT, entry), path.join(work, entry), { recursive: true });
  }
  await symlink(path.join(ROOT, 'node_modules'), path.join(work, 'node_modules'));
  // What is under test is the script's swap and mode bit, not the compiler: the copy's tsc emits one module
  // that imports nothing in each entry's folder, without type-checking (npm run lint checks types). The
  // entries that run (dist/cli/main.js, dist/simulator/cli.js) are the script's stubs over its esbuild
  // bundles, made from src/ whatever tsc emitted. Emitting all that the CLI and the simulator import took
  // 5 s and 8 CPU-s a build (three builds here, the file's largest cost).
  await writeFile(path.join(work, 'tsconfig.build.json'), JSON.stringify(fast()));
  // The packages the same way: their own settings, emitted without a check. Nothing here runs their
  // output (the copy's CLI and simulator import the client through node_modules, the checkout's build), so
  // each compiles one file that imports nothing, without @types/node: the script still builds, swaps and
  // cleans up both before the service's build, as it does every time.
  // The generator's build makes its bin executable, so its bin (with what it imports, all small) is emitted.
  for (const [pkg, file] of [
    ['client', 'src/names.ts'],
    ['browser', 'src/error-codes.ts'],
    ['codegen', 'src/cli.ts'],
  ] as const) {
    const own = JSON.parse(
      (await readFile(path.join(ROOT, 'packages', pkg, 'tsconfig.build.json'), 'utf8')).replace(/^\s*\/\/.*$/gm, ''),
    ) as { compilerOptions: Record<string, unknown> };
    Object.assign(own, { files: [file], include: [] });
    Object.assign(own.compilerOptions, { noCheck: true, types: [] });
    await writeFile(path.join(work, 'packages', pkg, 'tsconfig.build.json'), JSON.stringify(own));
  }
});

afterAll(async () => {
  simulator?.kill('SIGKILL');
  await rm(work, { recursive: true, force: true });
});

describe('npm run build', () => {
  it('when built twice with a simulator running from dist/, then the bin runs both times and the simulator keeps answering', async () => {
    expect(await build()).toBe(0);
    expect(await binMode()).toBe(0o755);
    expect((await runBin()).stdout).toMatch(/tgbff/);

    simulator = spawn(process.execPath, ['dist/simulator/cli.js', '--restpp-port', '0', '--gsql-port', '0'], {
      cwd: work,
    });
    const restpp = await new Promise<string>((resolve, reject) => {
      let out = '';
      simulator!.stdout!.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        const found = /RESTPP \(data\): +(\S+)/.exec(out);
        if (found) resolve(found[1]!);
      });
      simulator!.once('exit', (code) => reject(new Error(`simulator exited ${code}: ${out}`)));
    });
    // No token: RESTPP's own refusal, which is an answer from the running simulator all the same.
    const echo = () => fetch(`${restpp}/echo`).then((r) => r.status);
    expect(await echo()).toBe(401);

    expect(await build()).toBe(0);
    expect(await binMode()).toBe(0o755);
    expect((await runBin()).stdout).toMatch(/tgbff/);
    expect(simulator.exitCode).toBeNull();
    expect(await echo()).toBe(401);
    // Nothing of the swap is left beside dist/.
    expect((await readdir(work)).filter((name) => name.startsWith('.dist-'))).toEqual([]);
  }, 120_000);

  it('when tsc fails, then the build fails and dist/ is left as it was', async () => {
    const before = (await stat(path.join(work, 'dist/cli/main.js'))).mtimeMs;
    // A project tsc refuses at once (a type error would fail the same way, after a whole check): the fast
    // settings above, naming a file that is not there. Without `types: []` tsc read every @types package
    // first, seconds of CPU that a starved parallel worker once took past this test's timeout.
    const missing = { ...fast(), files: ['src/no-such-file.ts'] };
    await writeFile(path.join(work, 'tsconfig.build.json'), JSON.stringify(missing));
    expect(await build()).not.toBe(0);
    expect((await stat(path.join(work, 'dist/cli/main.js'))).mtimeMs).toBe(before);
    expect((await runBin()).stdout).toMatch(/tgbff/);
    expect((await readdir(work)).filter((name) => name.startsWith('.dist-'))).toEqual([]);
  }, 120_000);
});
