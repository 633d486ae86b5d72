// globalTeardown of the integration and e2e projects: removes the release folder their test files shared in
// this run (test/helpers/release-folder.ts), with its lock and output files. A run that made none has none.
import { readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export default async function removeRelease() {
  const id = process.env.TGBFF_TEST_RUN;
  if (!id) return;
  const prefix = `tgbff-test-release-${id}`;
  const mine = (await readdir(tmpdir())).filter((name) => name.startsWith(prefix));
  await Promise.all(mine.map((name) => rm(join(tmpdir(), name), { recursive: true, force: true })));
}
