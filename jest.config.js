// ESM throughout: ESM-only dependencies load as they are, no transforms of node_modules needed.
/** @type {import('jest').Config} */
export default {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: { '^.+\\.ts$': ['ts-jest', { useESM: true }] },
  testMatch: ['<rootDir>/test/**/*.test.ts'],
  testTimeout: 30000,
  globalSetup: '<rootDir>/test/global-setup.js',
  // Node itself can spin at exit: seen intermittently after data-server-faults (all tests passed, no JS
  // handle left open), the main thread loops in Environment::CleanupHandles -> uv_run(UV_RUN_ONCE) at
  // 100% CPU (gdb stack, 2026-11-25), i.e. inside Node's teardown, not in a leftover of a test. jest's
  // forceExit ends the process with process.exit(), which does not take that path.
  forceExit: true,
};
