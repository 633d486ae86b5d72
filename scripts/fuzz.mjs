// npm run fuzz: the property suite (test/property) with FUZZ_RUNS inputs per property (default 10,000; pass
// --runs N to change it), then one summary line of figures. Exits 1 when a property or a leak scan failed.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const at = process.argv.indexOf('--runs');
const runs = at > 0 ? Number(process.argv[at + 1]) : 10_000;
if (!(runs > 0)) {
  console.error('fuzz: --runs needs a positive number');
  process.exit(2);
}
const dir = mkdtempSync(join(tmpdir(), 'tgbff-fuzz-'));
const tallyFile = join(dir, 'tally.jsonl');
const started = Date.now();
const jest = spawnSync(
  process.execPath,
  // In band the tests run in jest's own process, where Node can spin at exit after a clean run (seen after the
  // fault suite: a loop in Environment::CleanupHandles): --forceExit ends it.
  [
    '--experimental-vm-modules',
    '--disable-warning=ExperimentalWarning',
    'node_modules/jest/bin/jest.js',
    '--runInBand',
    '--forceExit',
    'test/property',
  ],
  { stdio: 'inherit', env: { ...process.env, FUZZ_RUNS: String(runs), FUZZ_TALLY: tallyFile } },
);
let lines = [];
try {
  lines = readFileSync(tallyFile, 'utf8')
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line));
} catch {
  // no tally: jest failed before any property ran
}
rmSync(dir, { recursive: true, force: true });
const properties = lines.filter((l) => 'runs' in l);
const scans = lines.filter((l) => 'leakScan' in l);
const sum = (rows, key) => rows.reduce((n, row) => n + row[key], 0);
const failedProperties = properties.filter((p) => p.failed).length;
const leaked = sum(scans, 'leaked');
// A failed test that is neither a property nor a leak scan (a regression test, a rig that did not start).
const otherFailures = jest.status !== 0 && failedProperties === 0 && leaked === 0 ? 1 : 0;
const failures = failedProperties + otherFailures;
for (const p of properties)
  console.log(`  ${p.failed ? 'FAILED' : 'ok    '} ${p.name}: ${p.runs} runs, ${p.inputs} inputs`);
const seconds = Math.round((Date.now() - started) / 1000);
console.log(
  `fuzz: properties ${properties.length}, inputs tried ${sum(properties, 'inputs')}, failures ${failures}, ` +
    `leak scans ${scans.length} (${sum(scans, 'leakScan')} keys and logs), leaked ${leaked}, ${seconds} s`,
);
process.exit(jest.status === 0 && failures === 0 && leaked === 0 ? 0 : 1);
