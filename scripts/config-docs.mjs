// Writes .env.example and docs/configuration.md from the built config (npm run docs:config);
// with --check, exits 1 naming the files that differ instead of writing.
import { readFileSync, writeFileSync } from 'node:fs';
import { renderEnvExample, renderSettingsMarkdown } from '../dist/config/render-settings.js';

const root = new URL('..', import.meta.url);
const outputs = [
  ['.env.example', renderEnvExample()],
  ['docs/configuration.md', renderSettingsMarkdown()],
];
const check = process.argv.includes('--check');
let stale = 0;
for (const [file, text] of outputs) {
  const url = new URL(file, root);
  let current = '';
  try {
    current = readFileSync(url, 'utf8');
  } catch {
    // a missing file is stale
  }
  if (current === text) continue;
  if (check) {
    console.error(`${file} is out of date: run npm run docs:config`);
    stale++;
  } else {
    writeFileSync(url, text);
    console.log(`wrote ${file}`);
  }
}
process.exit(stale > 0 ? 1 : 0);
