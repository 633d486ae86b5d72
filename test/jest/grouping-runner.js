// jest's own runner, run in phases. The files that say `@paired <reason>` in their opening docblock run two
// at a time, and from the start, beside every other file: those run in parallel workers at a lower CPU
// priority (10 nicer than jest, and every process they start inherits it), so the paired files, which judge deadlines
// but mostly wait, get the CPU whenever they want it while the parallel files take what is left. Then the
// files that say `@serial <reason>` run one at a time in a single worker, with nothing beside them.
// `@serial` is for files that load the machine while they judge a deadline (load generators, crowds of
// processes, a soak); `@paired` for files that judge a deadline but spend most of their time waiting (on a
// failover, a frozen Redis, a back-off window). Everything else must be isolated (free ports, its own key
// prefix, its own redis-server for faults) and runs in parallel.
// Test files always run in workers, a single file too (jest would run that one in its own process): the
// jest process then holds no test's handles and exits by itself, without forceExit. `--runInBand` still
// runs everything in jest's process, one phase after the other (for a debugger).
import { readFileSync } from 'node:fs';
import { getPriority } from 'node:os';
import TestRunner from 'jest-runner';
import { extract, parse } from 'jest-docblock';

/** @returns {'parallel' | 'paired' | 'serial'} */
const phaseOf = (path) => {
  const pragmas = parse(extract(readFileSync(path, 'utf8')));
  if ('serial' in pragmas) return 'serial';
  return 'paired' in pragmas ? 'paired' : 'parallel';
};

/** How many files of each phase run at once; `maxWorkers` bounds each. */
const WIDTH = { parallel: Infinity, paired: 2, serial: 1 };

/** How much nicer than jest itself the parallel phase's workers run (test/jest/priority.cjs applies it). */
const PARALLEL_NICE_STEP = 10;
const NICE_ENV = 'TGBFF_TEST_NICE';
/** 19 is the lowest priority there is. */
const parallelNice = () => String(Math.min(19, getPriority() + PARALLEL_NICE_STEP));

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
    const of = (phase) => tests.filter((test) => phases.get(test) === phase);
    const inBand = this.#globalConfig.runInBand === true;
    const run = (phase, env = {}) => {
      const files = of(phase);
      if (files.length === 0 || watcher.isInterrupted()) return Promise.resolve();
      // No more workers than files: one file starts one worker, not maxWorkers of them.
      const workers = Math.min(this.#globalConfig.maxWorkers, WIDTH[phase], files.length);
      // jest-worker forks the workers synchronously, within this call, with process.env as it is then.
      const saved = Object.fromEntries(Object.keys(env).map((key) => [key, process.env[key]]));
      Object.assign(process.env, env);
      try {
        return this.#run(files, watcher, inBand, workers);
      } finally {
        for (const [key, value] of Object.entries(saved))
          if (value === undefined) delete process.env[key];
          else process.env[key] = value;
      }
    };
    if (inBand) {
      await run('parallel');
      await run('paired');
    } else {
      await Promise.all([run('parallel', { [NICE_ENV]: parallelNice() }), run('paired')]);
    }
    await run('serial');
  }

  async #run(tests, watcher, inBand, workers) {
    const runner = new TestRunner({ ...this.#globalConfig, maxWorkers: workers }, this.#context);
    for (const [eventName, listener] of this.#listeners) runner.on(eventName, listener);
    await runner.runTests(tests, watcher, { serial: inBand });
  }
}
