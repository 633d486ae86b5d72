// jest's own runner, run twice: first every test file in parallel workers, then the files that say
// `@serial <reason>` in their opening docblock, one at a time in a single worker, with nothing else of
// this run beside them. Test files always run in workers, a single file too (jest would run that one in
// its own process): the jest process then holds no test's handles and exits by itself, without forceExit.
// `--runInBand` still runs everything in jest's process (for a debugger). Serial is for files that measure time-sensitive behaviour under load (a deadline
// that must hold while they spend CPU) or that would disturb other files; everything else must be
// isolated (free ports, its own key prefix, its own redis-server for faults) and runs in parallel.
import { readFileSync } from 'node:fs';
import TestRunner from 'jest-runner';
import { extract, parse } from 'jest-docblock';

const isSerial = (path) => 'serial' in parse(extract(readFileSync(path, 'utf8')));

export default class GroupingRunner extends TestRunner {
  #serial;

  #inBand;

  constructor(globalConfig, context) {
    super(globalConfig, context);
    this.#inBand = globalConfig.runInBand === true;
    // A second runner limited to one worker: the serial files still get a fresh process each, as in parallel.
    this.#serial = new TestRunner({ ...globalConfig, maxWorkers: 1 }, context);
  }

  on(eventName, listener) {
    const offs = [super.on(eventName, listener), this.#serial.on(eventName, listener)];
    return () => offs.forEach((off) => off());
  }

  async runTests(tests, watcher, options) {
    const serial = tests.filter((test) => isSerial(test.path));
    const parallel = tests.filter((test) => !serial.includes(test));
    const inWorkers = { ...options, serial: this.#inBand };
    if (parallel.length > 0) await super.runTests(parallel, watcher, inWorkers);
    if (serial.length > 0 && !watcher.isInterrupted()) await this.#serial.runTests(serial, watcher, inWorkers);
  }
}
