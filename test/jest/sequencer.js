// The order files start in: jest's own (a file that failed last time first, then the longest first), with
// one change: where jest has no time of its own for a file (a fresh clone, as in CI: its timing cache is
// empty), the time recorded in test/jest/durations.json is used, not the file's size. By size, a short
// file that imports a long suite started last (the store conformance files: 9 s of timers each, alone at
// the end of the run); a file recorded long now starts early and its waiting overlaps the rest.
// `node scripts/test-durations.mjs <results.json>` records the times of a `--json` run; only the order
// depends on them, so a stale figure costs time, never a result.
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import Sequencer from '@jest/test-sequencer';

const RECORDED = JSON.parse(readFileSync(new URL('./durations.json', import.meta.url), 'utf8'));

export default class RecordedTimesSequencer extends Sequencer {
  time(test) {
    return super.time(test) ?? RECORDED[relative(test.context.config.rootDir, test.path)];
  }
}
