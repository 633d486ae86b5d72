// A setupFiles entry of every project: a worker started with TGBFF_TEST_NICE (the parallel workers, see
// grouping-runner.js) lowers its own CPU priority to that niceness, every thread of it, and so every process
// it starts afterwards (services, browsers, compilers) inherits it. On Linux a priority belongs to a thread,
// and setpriority(2) takes a thread id: each one in /proc/self/task is set (Node's helper threads too, which
// exist before any test runs); elsewhere the process's own call is the best there is. Once per worker: a later
// file finds the priority already lowered.
// CommonJS, so it loads in a jest run with or without --experimental-vm-modules.
const { readdirSync } = require('node:fs');
const { getPriority, setPriority } = require('node:os');

const nice = Number(process.env.TGBFF_TEST_NICE);
if (Number.isInteger(nice) && getPriority() < nice) {
  let threads;
  try {
    threads = readdirSync('/proc/self/task').map(Number);
  } catch {
    threads = [0];
  }
  for (const thread of threads) {
    try {
      setPriority(thread, nice);
    } catch {
      // Gone meanwhile, or not ours to change: it keeps its priority.
    }
  }
}
