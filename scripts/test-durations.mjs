// `node scripts/test-durations.mjs <results.json>`: writes test/jest/durations.json, each test file's time
// (ms, rounded to 100) in a jest `--json` run (`npm test -- --json --outputFile=results.json`), which
// test/jest/sequencer.js uses to start the long files first where jest has no times of its own.
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const [file] = process.argv.slice(2);
if (!file) {
  console.error('usage: node scripts/test-durations.mjs <jest --json results>');
  process.exit(2);
}
const results = JSON.parse(readFileSync(file, 'utf8'));
const times = Object.fromEntries(
  results.testResults
    .map((r) => [relative(ROOT, r.name), Math.max(100, Math.round((r.endTime - r.startTime) / 100) * 100)])
    .sort(([a], [b]) => a.localeCompare(b)),
);
writeFileSync(join(ROOT, 'test/jest/durations.json'), `${JSON.stringify(times, null, 2)}\n`);
console.log(`test/jest/durations.json: ${Object.keys(times).length} files`);
