import { appendFileSync } from 'node:fs';
import fc from 'fast-check';

/**
 * How many inputs each property tries: a few hundred in `npm test`, FUZZ_RUNS (>= 10,000) in `npm run fuzz`.
 * Properties against the real app cost a request or more per input, so they take a share of the budget.
 */
const FUZZ_RUNS = Number(process.env['FUZZ_RUNS'] ?? '') || 0;

/**
 * Jest's per-test limit for a property against the real app: how long its fixed number of runs may take, not
 * a claim about speed. Generous in `npm test` too: with every CPU taken, the session model's 20 runs took
 * over 30 s (jest's default), about 13 s on its own.
 */
export const FUZZ_TIMEOUT_MS = FUZZ_RUNS > 0 ? 900_000 : 120_000;

export function runs(testDefault: number, share = 1): number {
  return FUZZ_RUNS > 0 ? Math.max(testDefault, Math.ceil(FUZZ_RUNS * share)) : testDefault;
}

/** One line per property into FUZZ_TALLY (set by scripts/fuzz.mjs), which prints the summary. */
function tally(line: Record<string, unknown>): void {
  const file = process.env['FUZZ_TALLY'];
  if (file) appendFileSync(file, `${JSON.stringify(line)}\n`);
}

/** fc.assert that also reports how many inputs it tried; a failure carries fast-check's shrunk counterexample. */
export async function holds<Ts extends [unknown, ...unknown[]]>(
  name: string,
  property: fc.IProperty<Ts> | fc.IAsyncProperty<Ts>,
  params: fc.Parameters<Ts>,
  /** Inputs per run, or a count of every input tried (a model run is many commands). */
  inputs: number | (() => number) = 1,
): Promise<void> {
  const out = await fc.check(property as fc.IAsyncProperty<Ts>, params);
  const tried = typeof inputs === 'number' ? out.numRuns * inputs : inputs();
  tally({ name, runs: out.numRuns, inputs: tried, failed: out.failed });
  if (out.failed) {
    const why = out.errorInstance instanceof Error ? `\n${out.errorInstance.message}` : '';
    throw new Error(`${fc.defaultReportMessage(out) ?? `${name} failed`}${why}`);
  }
}

/** A leak scan's result goes into the summary too. */
export function tallyLeaks(name: string, scanned: number, leaked: string[]): void {
  tally({ name, leakScan: scanned, leaked: leaked.length });
}
