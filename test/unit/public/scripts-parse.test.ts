import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The demo page's scripts are served as they are (no bundler, no type check): a syntax error in one
 * reaches every browser, and the browser tests need Chromium to notice. Node parses them here without
 * running them (ES modules, as the page loads them).
 */
const dir = join(process.cwd(), 'public');
const scripts = readdirSync(dir).filter((name) => name.endsWith('.js'));

test('when the demo page ships scripts, then there are some to check', () => {
  expect(scripts).toContain('app.js');
});

test.each(scripts)('when public/%s is served, then it parses', (name) => {
  expect(() => execFileSync(process.execPath, ['--check', join(dir, name)], { stdio: 'pipe' })).not.toThrow();
});
