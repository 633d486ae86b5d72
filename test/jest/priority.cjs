// A setup file of every project (CommonJS, so ESM and CommonJS jest runs alike can load it): a test worker
// started for the parallel phase lowers its own CPU priority to the niceness test/jest/grouping-runner.js
// put in its environment (at its first file; a process may always lower its priority, never raise it back),
// and every process a test starts inherits it. So the `@paired` files, which run beside the parallel phase
// at jest's own priority, get the CPU when they want it.
const { getPriority, setPriority } = require('node:os');

const nice = Number(process.env.TGBFF_TEST_NICE ?? 0);
if (Number.isInteger(nice) && nice > getPriority()) setPriority(nice);
