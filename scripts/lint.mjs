// `npm run lint`: strict tsc, type-aware ESLint, the Prettier check, in that order, stopping at the first that
// fails. On a developer's machine each keeps a cache in node_modules/.cache/lint/ (tsc's build info, ESLint's and
// Prettier's caches, keyed on file contents, so a checkout that only touches times costs nothing), and a second
// run over an unchanged tree takes seconds, not a minute. Under CI (CI=true) nothing is cached: CI checks the
// tree as it is. One caveat of ESLint's cache with type-aware rules: a file's result is kept while its own text
// is unchanged, even if a type it uses changed elsewhere; CI, uncached, is the judge (LINT_CACHE=off runs a
// developer's lint uncached too).
import { spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';

const CACHE = 'node_modules/.cache/lint';
const cached = process.env.CI !== 'true' && process.env.LINT_CACHE !== 'off';
if (cached) mkdirSync(CACHE, { recursive: true });

const bin = (name) => `node_modules/.bin/${name}`;
const steps = [
  [
    bin('tsc'),
    ['--noEmit', '-p', '.', ...(cached ? ['--incremental', '--tsBuildInfoFile', `${CACHE}/tsc.tsbuildinfo`] : [])],
  ],
  [
    bin('eslint'),
    ['.', ...(cached ? ['--cache', '--cache-strategy', 'content', '--cache-location', `${CACHE}/eslint`] : [])],
  ],
  [
    bin('prettier'),
    [
      '--check',
      '.',
      ...(cached ? ['--cache', '--cache-strategy', 'content', '--cache-location', `${CACHE}/prettier`] : []),
    ],
  ],
];

for (const [command, args] of steps) {
  const { status, error } = spawnSync(command, args, { stdio: 'inherit' });
  if (error) throw error;
  if (status !== 0) process.exit(status ?? 1);
}
