import { execFile } from 'node:child_process';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const ROOT = path.resolve('.');
const FIXTURE = path.join(ROOT, 'test/fixtures/typed-consumer');
// Tools the consumer project installs next to the package, at the versions this repository pins.
const CONSUMER_DEV = ['@types/node', 'typescript'];

interface LockEntry {
  version?: string;
  dev?: boolean;
  dependencies?: Record<string, string>;
}

/**
 * The consumer's lockfile, seeded from this repository's: the package's runtime dependencies and the
 * consumer's tools at exactly the versions tested here. `npm ci` leaves every one of those tarballs in
 * the npm cache, so `npm install --offline <tarball>` then needs no registry (without a lockfile it
 * would ask the registry for each package's version list, which the cache does not hold).
 */
async function seedLockfile(dir: string): Promise<void> {
  const lock = JSON.parse(await readFile(path.join(ROOT, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, LockEntry>;
  };
  const packages: Record<string, LockEntry> = {};
  const addWithDependencies = (name: string): void => {
    const key = `node_modules/${name}`;
    const entry = lock.packages[key];
    if (!entry || packages[key]) return;
    packages[key] = entry;
    for (const dep of Object.keys(entry.dependencies ?? {})) addWithDependencies(dep);
  };
  for (const [key, entry] of Object.entries(lock.packages))
    if (key.startsWith('node_modules/') && !entry.dev) packages[key] = entry;
  CONSUMER_DEV.forEach(addWithDependencies);
  const devDependencies = Object.fromEntries(
    CONSUMER_DEV.map((n) => [n, lock.packages[`node_modules/${n}`]!.version!]),
  );
  const root = { name: 'typed-consumer', private: true, type: 'module', devDependencies };
  await writeFile(path.join(dir, 'package.json'), JSON.stringify(root, null, 2));
  await writeFile(
    path.join(dir, 'package-lock.json'),
    JSON.stringify(
      { name: root.name, lockfileVersion: 3, requires: true, packages: { '': root, ...packages } },
      null,
      2,
    ),
  );
}

const npm = (args: string[], cwd: string) => run('npm', args, { cwd, maxBuffer: 16 * 1024 * 1024 });

let work: string;
let consumer: string;
let files: string[];
beforeAll(async () => {
  work = await mkdtemp(path.join(tmpdir(), 'tgbff-pack-'));
  consumer = path.join(work, 'consumer');
  // dist/ was just built by jest's globalSetup; prepack would only build it again.
  const packed = await npm(['pack', '--ignore-scripts', '--json', '--pack-destination', work], ROOT);
  const [info] = JSON.parse(packed.stdout) as [{ filename: string; files: Array<{ path: string }> }];
  files = info.files.map((f) => f.path);
  await cp(FIXTURE, consumer, { recursive: true });
  await seedLockfile(consumer);
  const install = ['install', '--no-audit', '--no-fund', '--ignore-scripts', path.join(work, info.filename)];
  // A cache emptied since `npm ci` (a developer's machine) falls back to the registry for what is missing.
  await npm(['--offline', ...install], consumer).catch((err: { stderr?: string }) => {
    if (!err.stderr?.includes('ENOTCACHED')) throw err;
    return npm(['--prefer-offline', ...install], consumer);
  });
}, 120_000);
afterAll(() => rm(work, { recursive: true, force: true }));

describe('the packed package, installed into a TypeScript project', () => {
  it('when packed, then the tarball holds the compiled entry points with their declarations', () => {
    for (const f of [
      'dist/index.js',
      'dist/index.d.ts',
      'dist/simulator/index.js',
      'dist/simulator/index.d.ts',
      'dist/cli/main.js',
    ]) {
      expect([f, files.includes(f)]).toEqual([f, true]);
    }
    expect(files.filter((f) => f.startsWith('src/') || f.startsWith('test/'))).toEqual([]);
  });

  it("when package.json names declarations (types, and each export path's types condition), then each is in the tarball", async () => {
    const pkg = JSON.parse(await readFile(path.join(ROOT, 'package.json'), 'utf8')) as {
      types: string;
      exports: Record<string, string | { types?: string; default: string }>;
    };
    const named = [
      pkg.types,
      ...Object.values(pkg.exports).flatMap((e) => (typeof e === 'string' ? [] : [e.types, e.default])),
    ];
    expect(named).toContain('./dist/simulator/index.d.ts');
    // TypeScript falls back to the .d.ts next to `default` when `types` is wrong, so a wrong path would go unnoticed there.
    for (const f of named.map((n) => n!.replace(/^\.\//, ''))) expect([f, files.includes(f)]).toEqual([f, true]);
  });

  it('when a strict NodeNext consumer uses the connection, the token API, the error class and the simulator, then tsc --noEmit passes', async () => {
    const tsc = await run(process.execPath, ['node_modules/typescript/bin/tsc', '--noEmit', '-p', 'tsconfig.json'], {
      cwd: consumer,
    }).catch((err: { stdout: string; stderr: string }) => err);
    // On failure the compiler's own lines (e.g. TS7016 "could not find a declaration file") are the message.
    expect(`${tsc.stdout}${tsc.stderr}`).toBe('');
  }, 60_000);

  it('when plain JavaScript imports both export paths, then they load and a token round trip against the simulator works', async () => {
    const { stdout } = await run(process.execPath, ['runtime.mjs'], { cwd: consumer });
    expect(stdout).toBe('round trip ok: string\n');
  }, 30_000);

  it('when the installed bin runs, then tgbff answers --help', async () => {
    const { stdout } = await run(process.execPath, ['node_modules/.bin/tgbff', '--help'], { cwd: consumer });
    expect(stdout).toMatch(/^ {2}token get +mint a token from a secret$/m);
  });
});
