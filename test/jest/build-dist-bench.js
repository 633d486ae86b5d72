// globalSetup of the integration project: dist/ as for e2e, and dist-bench/ for the bench's smoke tests.
// A module of its own because jest runs each globalSetup path once per run, with the first project that
// names it: with one shared module, `npm test` built dist-bench/ only when integration came first.
import buildDist, { buildBench } from './build-dist.js';

export default function buildDistAndBench() {
  buildDist();
  buildBench();
}
