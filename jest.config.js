// ESM throughout: ESM-only dependencies load as they are, no transforms of node_modules needed.
// One jest run, four projects: `npm run test:unit|test:integration|test:e2e|test:property` pick one
// (--selectProjects), `npm test` runs them all. CONTRIBUTING.md says which kind of test goes where.
import { availableParallelism } from 'node:os';

const BUILD_DIST = '<rootDir>/test/jest/build-dist.js';
// dist/ and dist-bench/ (the bench's smoke tests); a path of its own: jest runs each globalSetup path once.
const BUILD_DIST_AND_BENCH = '<rootDir>/test/jest/build-dist-bench.js';
// Removes the run's release folder (test/helpers/release-folder.ts), which integration and e2e tests share.
const REMOVE_RELEASE = '<rootDir>/test/jest/remove-release.js';

/** @param {string} name @param {import('jest').Config} extra @returns {import('jest').Config} */
const project = (name, extra = {}) => ({
  displayName: name,
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  // The client package by its name, from its sources (as tsconfig.json's paths): no build before a unit test.
  moduleNameMapper: {
    '^@tigergraph-bff/client$': '<rootDir>/packages/client/src/index.ts',
    '^@tigergraph-bff/browser$': '<rootDir>/packages/browser/src/index.ts',
    '^@tigergraph-bff/codegen$': '<rootDir>/packages/codegen/src/index.ts',
    '^(\\.{1,2}/.*)\\.js$': '$1',
  },
  // Types stripped file by file with esbuild (test/jest/esbuild-transform.js); `npm run lint` type-checks.
  transform: { '^.+\\.ts$': '<rootDir>/test/jest/esbuild-transform.js' },
  testMatch: [`<rootDir>/test/${name}/**/*.test.ts`],
  ...extra,
});

/** @type {import('jest').Config} */
export default {
  projects: [
    project('unit'),
    // Their tests start dist/main.js, the CLI or the simulator as child processes: build dist/ first.
    project('integration', { globalSetup: BUILD_DIST_AND_BENCH, globalTeardown: REMOVE_RELEASE }),
    project('e2e', { globalSetup: BUILD_DIST, globalTeardown: REMOVE_RELEASE }),
    project('property'),
  ],
  // Long files first, from recorded times where jest has none (a fresh clone): test/jest/sequencer.js.
  testSequencer: '<rootDir>/test/jest/sequencer.js',
  // A hang detector, not a property: a test's own bounds say what it promises. Generous, so that a machine whose
  // CPUs are taken by other work (npm run test:stress) makes a test slower, never failed.
  testTimeout: 120_000,
  // Most test time is waiting on sockets, child processes and Redis, not CPU: twice the cores keeps both
  // cores busy (jest's default, cores - 1, is a single worker on a 2-core machine). --maxWorkers overrides.
  maxWorkers: Math.max(2, availableParallelism() * 2),
};
