// globalSetup of the integration project: dist/ as for e2e, and dist-bench/ for the bench's smoke tests.
// A module of its own because jest runs each globalSetup path once per run, with the first project that
// names it: with one shared module, `npm test` built dist-bench/ only when integration came first.
import buildDist, { buildBench } from './build-dist.js';

// Side by side: the bench's tsc needs nothing of dist/, and the machine has two cores (about 4 s less).
export default async function buildDistAndBench() {
  await Promise.all([buildDist(), buildBench()]);
}
