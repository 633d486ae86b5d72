/**
 * A test waits for the event it needs or polls a condition through test/helpers/wait.ts; a fixed wait is
 * `elapse(ms, why)`, where time itself is the property. A bare sleep elsewhere in test/ (a timers/promises
 * import, a `new Promise` around setTimeout, a sleep helper of its own) is how a suite comes to pass only
 * on a quiet machine, so this file refuses it, naming the line.
 */
import { describe, expect, it } from '@jest/globals';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

const ROOT = 'test';
/** The one home of waiting. */
const WAIT_HELPER = 'test/helpers/wait.ts';
/** Files that are not test code run by jest: code they hold is text, or runs elsewhere. */
const NOT_TEST_CODE = new Set([
  // This file: its patterns below.
  'test/unit/ci/fixed-sleeps.test.ts',
]);

const BARE_SLEEPS: Array<[string, RegExp]> = [
  ['a timers/promises import', /from ['"](node:)?timers\/promises['"]/],
  ['a promise around setTimeout', /new Promise[^;\n]*setTimeout\(\s*\w+\s*,/],
  ['a sleep helper of its own', /(const|function)\s+(sleep|delay|pause)\b/],
];

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return filesUnder(path);
    return /\.(ts|js|mjs|cjs)$/.test(entry.name) ? [path] : [];
  });
}

/** Every bare sleep in test/, as `file:line: what`. */
function bareSleeps(): string[] {
  const found: string[] = [];
  for (const file of filesUnder(ROOT)) {
    const name = relative('.', file);
    if (name === WAIT_HELPER || NOT_TEST_CODE.has(name)) continue;
    readFileSync(file, 'utf8')
      .split('\n')
      .forEach((line, i) => {
        for (const [what, pattern] of BARE_SLEEPS) if (pattern.test(line)) found.push(`${name}:${i + 1}: ${what}`);
      });
  }
  return found;
}

describe('fixed sleeps in test/', () => {
  it('when a test waits, then it waits through test/helpers/wait.ts, never on a bare sleep', () => {
    expect(bareSleeps()).toEqual([]);
  });

  it('when time itself is the property, then elapse() says why in words', () => {
    const unexplained: string[] = [];
    for (const file of filesUnder(ROOT)) {
      const name = relative('.', file);
      if (name === WAIT_HELPER || NOT_TEST_CODE.has(name)) continue;
      const text = readFileSync(file, 'utf8');
      const calls = text.match(/\belapse\(/g)?.length ?? 0;
      const explained = [...text.matchAll(/\belapse\([^;]*?,\s*(['"`])(.{12,}?)\1\s*,?\s*\)/gs)].length;
      if (explained !== calls)
        unexplained.push(`${name}: ${calls - explained} of ${calls} elapse() calls without a why`);
    }
    expect(unexplained).toEqual([]);
  });

  it('when the scan meets a bare sleep, then it names it (the scan itself works)', () => {
    const sample = "import { setTimeout as sleep } from 'node:timers/promises';";
    expect(BARE_SLEEPS.some(([, pattern]) => pattern.test(sample))).toBe(true);
    expect(BARE_SLEEPS.some(([, pattern]) => pattern.test('await new Promise((r) => setTimeout(r, 50));'))).toBe(true);
    expect(BARE_SLEEPS.some(([, pattern]) => pattern.test('const sleep = (ms: number) => 1;'))).toBe(true);
    expect(BARE_SLEEPS.some(([, pattern]) => pattern.test("await until('x', () => true);"))).toBe(false);
  });
});
