// jest's own runner, run twice: first every test file in parallel workers, then the files that say
// `@serial <reason>` in their opening docblock, one at a time in a single worker, with nothing else of
// this run beside them. Serial is for files that measure time-sensitive behaviour under load (a deadline
// that must hold while they spend CPU) or that start a crowd of processes; everything else must be
// isolated (free ports, its own key prefix, its own redis-server for faults) and runs in parallel.
// Test files always run in workers, a single file too (jest would run that one in its own process): the
// jest process then holds no test's handles and exits by itself, without forceExit. `--runInBand` still
// runs everything in jest's process (for a debugger).
import { readFileSync } from 'node:fs';
import TestRunner from 'jest-runner';
import { extract, parse } from 'jest-docblock';

const isSerial = (path) => 'serial' in parse(extract(readFileSync(path, 'utf8')));

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
    const serial = tests.filter((test) => isSerial(test.path));
    const parallel = tests.filter((test) => !serial.includes(test));
    const inBand = this.#globalConfig.runInBand === true;
    // No more workers than files: one file starts one worker, not maxWorkers of them.
    if (parallel.length > 0)
      await this.#run(parallel, watcher, inBand, Math.min(this.#globalConfig.maxWorkers, parallel.length));
    if (serial.length > 0 && !watcher.isInterrupted()) await this.#run(serial, watcher, inBand, 1);
  }

  async #run(tests, watcher, inBand, workers) {
    const runner = new TestRunner({ ...this.#globalConfig, maxWorkers: workers }, this.#context);
    for (const [eventName, listener] of this.#listeners) runner.on(eventName, listener);
    await runner.runTests(tests, watcher, { serial: inBand });
  }
}
