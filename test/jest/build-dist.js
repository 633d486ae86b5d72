// globalSetup of the projects whose tests run the compiled service (integration, e2e): child processes
// start dist/main.js, dist/cli/main.js or dist/simulator/cli.js. Unit and property tests never need it.
// The build is skipped when nothing it reads changed since the last one this setup made, so running one
// integration file twice in a row compiles once.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';

const STAMP = 'node_modules/.cache/tgbff-test/dist-stamp';
const INPUTS = ['tsconfig.json', 'tsconfig.build.json', 'node_modules/typescript/package.json'];

function* files(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* files(path);
    else yield path;
  }
}

/** Every input's path, size and mtime, and whether each source file has its output. */
function fingerprint() {
  const hash = createHash('sha256');
  let complete = true;
  for (const path of [...files('src')].sort()) {
    const { size, mtimeMs } = statSync(path);
    hash.update(`${path}\0${size}\0${mtimeMs}\n`);
    if (path.endsWith('.ts') && !path.endsWith('.d.ts')) {
      complete &&= existsSync(join('dist', relative('src', path)).replace(/\.ts$/, '.js'));
    }
  }
  for (const path of INPUTS) hash.update(`${path}\0${readFileSync(path, 'utf8')}\n`);
  return { value: hash.digest('hex'), complete };
}

export default function buildDist() {
  const before = fingerprint();
  if (before.complete && existsSync(STAMP) && readFileSync(STAMP, 'utf8') === before.value) return;
  execFileSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json'], {
    stdio: 'inherit',
  });
  mkdirSync(dirname(STAMP), { recursive: true });
  writeFileSync(STAMP, fingerprint().value);
}
