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
};
