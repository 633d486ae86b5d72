import { execFile } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
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
  if (opts.runtime === 'all') {
    // Workspace links (the client package) come from their own tarball instead.
    for (const [key, entry] of Object.entries(lock.packages))
      if (key.startsWith('node_modules/') && !entry.dev && !entry.link) packages[key] = entry;
  } else {
    opts.runtime.forEach(addWithDependencies);
  }
  opts.dev.forEach(addWithDependencies);
  const devDependencies = Object.fromEntries(opts.dev.map((n) => [n, lock.packages[`node_modules/${n}`]!.version!]));
  const root = { name: opts.name, private: true, type: 'module', devDependencies };
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
