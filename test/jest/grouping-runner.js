// jest's own runner, run in three phases: first every test file in parallel workers; then the files that
// say `@paired <reason>` in their opening docblock, two at a time; then the files that say
// `@serial <reason>`, one at a time in a single worker. Nothing of the earlier phases runs beside a later one.
// `@serial` is for files that load the machine while they judge a deadline (load generators, crowds of
// processes, a soak); `@paired` for files that judge a deadline but spend most of their time waiting (on a
// failover, a frozen Redis, a back-off window), so one other such file beside them leaves the CPU mostly
// idle. Everything else must be isolated (free ports, its own key prefix, its own redis-server for faults)
// and runs in parallel.
// Test files always run in workers, a single file too (jest would run that one in its own process): the
// jest process then holds no test's handles and exits by itself, without forceExit. `--runInBand` still
// runs everything in jest's process (for a debugger).
import { readFileSync } from 'node:fs';
import TestRunner from 'jest-runner';
import { extract, parse } from 'jest-docblock';

/** @returns {'parallel' | 'paired' | 'serial'} */
const phaseOf = (path) => {
  const pragmas = parse(extract(readFileSync(path, 'utf8')));
  if ('serial' in pragmas) return 'serial';
  return 'paired' in pragmas ? 'paired' : 'parallel';
};

/** Files per phase and how many run at once; `maxWorkers` bounds all of them. */
const PHASES = [
  ['parallel', Infinity],
  ['paired', 2],
  ['serial', 1],
];

export default class GroupingRunner extends TestRunner {
  #globalConfig;
  #context;
  #listeners = [];

  constructor(globalConfig, context) {
    super(globalConfig, context);
    this.#globalConfig = globalConfig;
    this.#context = context;
  }

  // The scheduler subscribes here; each inner runner below reports through the same listeners.
  on(eventName, listener) {
    const entry = [eventName, listener];
    this.#listeners.push(entry);
    return () => {
      this.#listeners = this.#listeners.filter((e) => e !== entry);
    };
  }

  async runTests(tests, watcher) {
    const phases = new Map(tests.map((test) => [test, phaseOf(test.path)]));
    const inBand = this.#globalConfig.runInBand === true;
    for (const [phase, width] of PHASES) {
      const files = tests.filter((test) => phases.get(test) === phase);
      if (files.length === 0 || watcher.isInterrupted()) continue;
      // No more workers than files: one file starts one worker, not maxWorkers of them.
      await this.#run(files, watcher, inBand, Math.min(this.#globalConfig.maxWorkers, width, files.length));
    }
  }

  async #run(tests, watcher, inBand, workers) {
    const runner = new TestRunner({ ...this.#globalConfig, maxWorkers: workers }, this.#context);
    for (const [eventName, listener] of this.#listeners) runner.on(eventName, listener);
    await runner.runTests(tests, watcher, { serial: inBand });
  }
}
