/**
 * jest's testTimeout (jest.config.js, 120 s) is a hang detector, not a property: a test or hook that sets a
 * shorter one of its own turns a machine whose cores other work has taken into a red run. This file refuses
 * such a timeout anywhere in test/, naming the line; a bound a test promises goes in its assertions, read from
 * the setting it tests (CONTRIBUTING.md, "Waiting in a test").
 */
import { describe, expect, it } from '@jest/globals';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';

const CALLS = new Set(['test', 'it', 'beforeAll', 'beforeEach', 'afterAll', 'afterEach']);

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return testFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** `file:line: ms` for every test(name, fn, ms) or hook(fn, ms) whose ms is a literal below `floor`. */
function shortTimeouts(floor: number): string[] {
  const found: string[] = [];
  for (const file of testFiles('test')) {
    const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
    const visit = (node: ts.Node): void => {
      if (ts.isCallExpression(node)) {
        const callee = ts.isPropertyAccessExpression(node.expression) ? node.expression.expression : node.expression;
        if (ts.isIdentifier(callee) && CALLS.has(callee.text)) {
          const at = callee.text === 'test' || callee.text === 'it' ? 2 : 1;
          const arg = node.arguments[at];
          if (arg && ts.isNumericLiteral(arg) && Number(arg.text) < floor) {
            const { line } = source.getLineAndCharacterOfPosition(arg.getStart(source));
            found.push(`${relative('.', file)}:${line + 1}: ${arg.text} ms`);
          }
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return found;
}

describe('jest timeouts in test/', () => {
  it('when a test or hook sets its own timeout, then it is no shorter than the suite hang detector', () => {
    const setting = /testTimeout:\s*([\d_]+)/.exec(readFileSync('jest.config.js', 'utf8'))?.[1];
    const floor = Number(setting?.replace(/_/g, ''));
    expect(floor).toBeGreaterThanOrEqual(120_000);
    expect(shortTimeouts(floor)).toEqual([]);
  });

  it('when the check meets a short timeout, then it names it (the check can fail)', () => {
    // This file's own source has none; a floor above 120 s makes the longer ones in test/ count.
    expect(shortTimeouts(Number.MAX_SAFE_INTEGER).length).toBeGreaterThan(0);
  });
});
