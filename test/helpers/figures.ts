import { appendFileSync, mkdirSync } from 'node:fs';
import { dirname, relative } from 'node:path';

/** Where the figures of every run go, one line each, newest last (the folder is git-ignored). */
export const FIGURES_FILE = 'test-results/figures.log';

/**
 * A figure a test measured (a fault's latencies, a failover window, bytes per session): appended to
 * test-results/figures.log with the time and the test file, and printed too when TEST_FIGURES=1. Figures
 * are for people reading them later; they never decide whether the test passes.
 */
export function recordFigure(line: string): void {
  const file = relative(process.cwd(), expect.getState().testPath ?? 'unknown');
  mkdirSync(dirname(FIGURES_FILE), { recursive: true });
  appendFileSync(FIGURES_FILE, `${new Date().toISOString()} ${file}: ${line}\n`);
  if (process.env.TEST_FIGURES === '1') console.log(line);
}
