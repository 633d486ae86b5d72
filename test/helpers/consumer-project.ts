import { execFile } from 'node:child_process';
import { copyFile, mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';

// An empty project that installs packed tarballs of this repository, as a user's project would, offline.
const run = promisify(execFile);
const ROOT = path.resolve('.');

interface LockEntry {
  version?: string;
  dev?: boolean;
  link?: boolean;
  dependencies?: Record<string, string>;
}

export const npm = (args: string[], cwd: string) => run('npm', args, { cwd, maxBuffer: 16 * 1024 * 1024 });

/**
 * Writes package.json and a lockfile seeded from this repository's: the packages the tarballs need at run
 * time (`runtime`: names with their dependencies, or 'all' for every production entry) and the consumer's
 * tools (`dev`), at exactly the versions tested here. `npm ci` leaves every one of those tarballs in the npm
 * cache, so `npm install --offline <tarball>` then needs no registry (without a lockfile it would ask the
 * registry for each package's version list, which the cache does not hold).
 */
export async function seedConsumer(dir: string, opts: { name: string; runtime: string[] | 'all'; dev: string[] }) {
  const { lock, packages } = await repositoryEntries(opts.runtime, opts.dev);
  const devDependencies = Object.fromEntries(opts.dev.map((n) => [n, lock[`node_modules/${n}`]!.version!]));
  const root = { name: opts.name, private: true, type: 'module', devDependencies };
  await writeFile(path.join(dir, 'package.json'), JSON.stringify(root, null, 2));
  await writeLock(dir, root, packages);
}

/**
 * The registry's stand-in for a project that has its package.json already (`npm init -y`): a lockfile of
 * every production entry of this repository's, so that installing the service's tarballs there with
 * `--offline` resolves each dependency from the lock and fetches it from the npm cache.
 */
export async function seedLockForService(dir: string): Promise<void> {
  const root = JSON.parse(await readFile(path.join(dir, 'package.json'), 'utf8')) as Record<string, unknown>;
  await writeLock(dir, root, (await repositoryEntries('all', [])).packages);
}

async function repositoryEntries(runtime: string[] | 'all', dev: string[]) {
  const lock = (
    JSON.parse(await readFile(path.join(ROOT, 'package-lock.json'), 'utf8')) as {
      packages: Record<string, LockEntry>;
    }
  ).packages;
  const packages: Record<string, LockEntry> = {};
  const addWithDependencies = (name: string): void => {
    const key = `node_modules/${name}`;
    const entry = lock[key];
    if (!entry || packages[key]) return;
    packages[key] = entry;
    for (const dep of Object.keys(entry.dependencies ?? {})) addWithDependencies(dep);
  };
  if (runtime === 'all') {
    // Workspace links (the client package) come from their own tarball instead.
    for (const [key, entry] of Object.entries(lock))
      if (key.startsWith('node_modules/') && !entry.dev && !entry.link) packages[key] = entry;
  } else {
    runtime.forEach(addWithDependencies);
  }
  dev.forEach(addWithDependencies);
  return { lock, packages };
}

async function writeLock(dir: string, root: Record<string, unknown>, packages: Record<string, LockEntry>) {
  const lockFile = { name: root.name, lockfileVersion: 3, requires: true, packages: { '': root, ...packages } };
  await writeFile(path.join(dir, 'package-lock.json'), JSON.stringify(lockFile, null, 2));
}

/** Packs the package at `packageDir` (already built: no prepack) into `into`; its file name and file list. */
export async function pack(packageDir: string, into: string): Promise<{ tarball: string; files: string[] }> {
  const packed = await npm(['pack', '--ignore-scripts', '--json', '--pack-destination', into], packageDir);
  const [info] = JSON.parse(packed.stdout) as [{ filename: string; files: Array<{ path: string }> }];
  return { tarball: path.join(into, info.filename), files: info.files.map((f) => f.path) };
}

/** Installs tarballs into the consumer, offline; a cache emptied since `npm ci` falls back to the registry. */
export async function installTarballs(dir: string, tarballs: string[]): Promise<void> {
  const install = ['install', '--no-audit', '--no-fund', '--ignore-scripts', ...tarballs];
  await npm(['--offline', ...install], dir).catch((err: { stderr?: string }) => {
    if (!err.stderr?.includes('ENOTCACHED')) throw err;
    return npm(['--prefer-offline', ...install], dir);
  });
}

/**
 * `tsc --noEmit -p tsconfig.json` in the consumer, incremental: the compiler's per-file results (diagnostics
 * included) are kept between runs in node_modules/.cache/tgbff-test/<cache>.tsbuildinfo. Files are known by
 * a hash of their text and by paths relative to the consumer, so a fresh consumer from the same tarballs
 * reuses the checks of every unchanged declaration file (most of the time: @types/node, under the fixture's
 * skipLibCheck false) and checks again whatever changed, and what depends on it, as a cold run would; an
 * error found before is reported again while its file is unchanged. Only for --noEmit: an incremental emit
 * would skip the unchanged files' output in a fresh directory. Resolves to what tsc printed ('' when clean).
 */
export async function typecheck(dir: string, cache: string): Promise<string> {
  const cacheDir = path.join(ROOT, 'node_modules/.cache/tgbff-test');
  const cached = path.join(cacheDir, `${cache}.tsbuildinfo`);
  const local = path.join(dir, '.tsbuildinfo');
  await copyFile(cached, local).catch(() => undefined);
  const tsc = ['node_modules/typescript/bin/tsc', '--noEmit', '-p', 'tsconfig.json', '--incremental'];
  const out = await run(process.execPath, [...tsc, '--tsBuildInfoFile', local], { cwd: dir }).catch(
    (err: { stdout: string; stderr: string }) => err,
  );
  // Renamed into place: a run of the same file in parallel reads the old cache or this one, never half of it.
  await mkdir(cacheDir, { recursive: true });
  const fresh = `${cached}.${process.pid}`;
  try {
    await copyFile(local, fresh);
    await rename(fresh, cached);
  } catch {
    // tsc wrote no build info (it did not get that far): the cache stays as it was.
  }
  return `${out.stdout}${out.stderr}`;
}
