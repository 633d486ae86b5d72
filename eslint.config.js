// `npm run lint` runs tsc, this, and `prettier --check`. Type-aware rules (typescript-eslint) over src,
// test and bench; the plain recommended rules over the JavaScript (public/, scripts/, test/jest/, configs).
// Import boundaries between folders stay a test: test/unit/architecture/import-rules.test.ts.
import js from '@eslint/js';
import jest from 'eslint-plugin-jest';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      'dist/',
      'packages/*/dist/',
      // The example app is type-checked by its own build (tsc -p examples/react-vite), not this project's.
      'examples/',
      'public/sdk/',
      'dist-bench/',
      'coverage/',
      'bench/results/',
      'test-results/',
      'test/fixtures/',
    ],
  },
  js.configs.recommended,
  {
    files: ['**/*.ts'],
    extends: [tseslint.configs.recommendedTypeChecked],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      // The bugs this linter is here for: a promise nobody awaits or catches (its rejection is unhandled),
      // a promise where the caller ignores the return (an express handler, an event listener), a switch
      // that forgets a member of a union.
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true }],
      // A leading underscore marks a parameter an interface requires but this implementation does not use
      // (express's error handler needs four); a rest sibling drops a field from a copy.
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true },
      ],
      // A caught value passed on as it came (`reject(err)`) is whatever was thrown; wrapping it would lose it.
      '@typescript-eslint/prefer-promise-reject-errors': [
        'error',
        { allowThrowingAny: true, allowThrowingUnknown: true },
      ],
      // Off: without noUncheckedIndexedAccess TypeScript types `list[i]` as always present, so this rule
      // asks to delete the `!` that says "this index exists"; the mark is the point, and it finds no bug.
      '@typescript-eslint/no-unnecessary-type-assertion': 'off',
      // Off: `async` on a function without `await` is how the stores and brokers implement promise-returning
      // interfaces so that a synchronous throw becomes a rejection, as their callers expect.
      '@typescript-eslint/require-await': 'off',
      // Off: the code passes functions of factory-made objects (closures, no `this`) around; the rule
      // cannot tell them from class methods when an interface declares them with method syntax.
      '@typescript-eslint/unbound-method': 'off',
      // Off: String() here turns JSON-parsed values (typed unknown) into text on purpose, for messages and
      // the simulator's echoes; an object printing as [object Object] there is harmless.
      '@typescript-eslint/no-base-to-string': 'off',
    },
  },
  {
    files: ['test/**/*.ts'],
    plugins: { jest },
    languageOptions: { globals: globals.jest },
    rules: {
      // A focused test silently skips the rest of the suite (node-oidc-provider's forbidOnly).
      'jest/no-focused-tests': 'error',
      // Off in tests: supertest's `res.body`, JSON.parse and the Kubernetes objects are `any` by design, and
      // asserting on their members is what the test does; src keeps these rules.
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
  {
    files: ['**/*.js', '**/*.mjs', '**/*.cjs'],
    languageOptions: { globals: globals.node },
  },
  {
    files: ['public/**/*.js'],
    languageOptions: { globals: globals.browser, sourceType: 'module' },
  },
);
