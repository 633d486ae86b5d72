// jest's own runner. Every file runs in parallel workers at the lowest CPU priority, except those that say
// `@paired <reason>` or `@serial <reason>` in their opening docblock: those run beside them at jest's own
// priority, the paired files two at a time, then the serial files one at a time (no paired file beside them).
// `@paired` is for files that judge a deadline but spend most of their time waiting (on a failover, a frozen
// Redis, a back-off window); `@serial` for files that judge a deadline under load they make themselves
// (load generators, crowds of processes, a soak), which another timed file beside them would change. With
// the parallel workers (and every process they start) niced to 19, the kernel gives a timed file's
// processes the CPU whenever they want it, so it sees about the machine it would see alone, while the
// parallel files use what it leaves idle (most of it: a timed file mostly waits). Everything else must be
// isolated (free ports, its own key prefix, its own redis-server for faults) and runs in parallel.
// The priority is set by each parallel worker for itself (test/jest/cpu-priority.cjs, a setupFiles entry,
// told by TGBFF_TEST_NICE in the environment it was started with); lowering one's own priority needs no
// privilege, and where the kernel refuses, the files still run, only without the separation.
// Test files always run in workers, a single file too (jest would run that one in its own process): the
// jest process then holds no test's handles and exits by itself, without forceExit. `--runInBand` still
// runs everything in jest's process, one kind after the other (for a debugger).
import { readFileSync } from 'node:fs';
import TestRunner from 'jest-runner';
import { extract, parse } from 'jest-docblock';

/** @returns {'parallel' | 'paired' | 'serial'} */
const phaseOf = (path) => {
  const pragmas = parse(extract(readFileSync(path, 'utf8')));
  if ('serial' in pragmas) return 'serial';
  return 'paired' in pragmas ? 'paired' : 'parallel';
};

/** How many paired files run at once. */
const PAIR = 2;
/** The parallel workers' niceness (the lowest priority there is). */
const PARALLEL_NICE = '19';

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
    if (this.#globalConfig.runInBand === true) {
      for (const phase of ['parallel', 'paired', 'serial']) await this.#run(of(phase), watcher, 1, true);
      return;
    }
    // The paired runner first: its workers are started while nothing asks for a lower priority. Each runner
    // starts its workers synchronously in runTests, so the variable reaches the parallel workers only, and the
    // serial runner, started later, finds it gone.
    const paired = this.#run(of('paired'), watcher, PAIR);
    process.env.TGBFF_TEST_NICE = PARALLEL_NICE;
    let parallel;
    try {
      parallel = this.#run(of('parallel'), watcher, Infinity);
    } finally {
      delete process.env.TGBFF_TEST_NICE;
    }
    const timed = paired.then(() => this.#run(of('serial'), watcher, 1));
    await Promise.all([timed, parallel]);
  }

  async #run(tests, watcher, width, inBand = false) {
    if (tests.length === 0 || watcher.isInterrupted()) return;
    // No more workers than files: one file starts one worker, not maxWorkers of them.
    const workers = Math.min(this.#globalConfig.maxWorkers, width, tests.length);
    const runner = new TestRunner({ ...this.#globalConfig, maxWorkers: workers }, this.#context);
    for (const [eventName, listener] of this.#listeners) runner.on(eventName, listener);
    await runner.runTests(tests, watcher, { serial: inBand });
  }
}
