// globalSetup of the projects whose tests run the compiled service (integration, e2e): child processes
// start dist/main.js, dist/cli/main.js or dist/simulator/cli.js (which import their bundles). Unit and property tests never need it.
// The build is skipped when nothing it reads changed since the last one this setup made, so running one
// integration file twice in a row compiles once. For the integration project it also compiles the
// benchmark's scripts (bench/ into dist-bench/, which bench-smoke and soak-smoke run), the same way: once,
// and again only when bench/ or its settings change.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';

const STAMP = 'node_modules/.cache/tgbff-test/dist-stamp';
const BENCH_STAMP = 'node_modules/.cache/tgbff-test/dist-bench-stamp';
const INPUTS = [
  'tsconfig.json',
  'tsconfig.build.json',
  'packages/client/tsconfig.build.json',
  'packages/client/package.json',
  'packages/browser/tsconfig.build.json',
  'packages/browser/package.json',
  'packages/codegen/tsconfig.build.json',
  'packages/codegen/package.json',
  'scripts/build.mjs',
  // Bundles the entries the child processes run (dist/bundle/).
  'scripts/bundle.mjs',
  'node_modules/esbuild/package.json',
  // Converted to dist/openapi.json by the build.
  'docs/openapi.yaml',
  'node_modules/typescript/package.json',
];
// Each source tree and where its build goes: the client package first (the service imports its build).
const TREES = [
  ['packages/client/src', 'packages/client/dist'],
  ['packages/browser/src', 'packages/browser/dist'],
  // The service's `tgbff codegen` imports the generator's build: a change only there must rebuild too.
  ['packages/codegen/src', 'packages/codegen/dist'],
  ['src', 'dist'],
];

function* files(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* files(path);
    else yield path;
  }
}

/** Every input's path, size and mtime, and whether each source file has its output. */
function fingerprint(trees = TREES, inputs = INPUTS) {
  const hash = createHash('sha256');
  let complete = true;
  for (const [src, out] of trees) {
    for (const path of [...files(src)].sort()) {
      const { size, mtimeMs } = statSync(path);
      hash.update(`${path}\0${size}\0${mtimeMs}\n`);
      if (path.endsWith('.ts') && !path.endsWith('.d.ts')) {
        complete &&= existsSync(join(out, relative(src, path)).replace(/\.ts$/, '.js'));
      }
    }
  }
  for (const path of inputs) hash.update(`${path}\0${readFileSync(path, 'utf8')}\n`);
  return { value: hash.digest('hex'), complete };
}

/** Runs node with `args`, its output on ours; rejects when it fails (it printed why). */
function node(args) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: 'inherit' });
    child.on('error', reject);
    child.on('exit', (code, signal) =>
      code === 0 ? resolve() : reject(new Error(`node ${args.join(' ')}: ${signal ?? `exit ${code}`}`)),
    );
  });
}

/** Runs `make` unless the fingerprint equals the one `stamp` holds from the last time it ran. */
async function unlessUnchanged(stamp, fingerprintNow, make) {
  const before = fingerprintNow();
  if (before.complete && existsSync(stamp) && readFileSync(stamp, 'utf8') === before.value) return;
  await make();
  mkdirSync(dirname(stamp), { recursive: true });
  writeFileSync(stamp, fingerprintNow().value);
}

export default async function buildDist() {
  // Names this jest run for its workers (forked after the globalSetup, with its environment): the test files
  // that install from a release share one folder per run (test/helpers/release-folder.ts).
  process.env.TGBFF_TEST_RUN ??= `${process.pid}-${Date.now()}`;
  // npm run build's own script: into a fresh directory, swapped in, the CLI bin made executable.
  await unlessUnchanged(STAMP, fingerprint, () => node(['scripts/build.mjs']));
}

/** dist-bench/, for the bench's smoke tests (integration): its scripts import nothing of src/, so its own inputs only. */
export async function buildBench() {
  const benchInputs = ['tsconfig.json', 'tsconfig.bench.json', 'node_modules/typescript/package.json'];
  await unlessUnchanged(
    BENCH_STAMP,
    () => fingerprint([['bench', 'dist-bench']], benchInputs),
    () => node(['node_modules/typescript/bin/tsc', '-p', 'tsconfig.bench.json']),
  );
}
