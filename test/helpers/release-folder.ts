import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { until } from './wait.js';

// `npm run release`'s folder (scripts/release.mjs --skip-build --no-image: dist/ and the packages' dist/ are
// jest's globalSetup's), made once per jest run and shared by the test files that install from it
// (test/integration/package/release.test.ts, test/e2e/react-example.test.ts): the first file to ask builds
// it, the others wait for it. The run is named by TGBFF_TEST_RUN, which the globalSetup sets
// (test/jest/build-dist.js) and whose folders the globalTeardown removes (test/jest/remove-release.js).
// Without it (another runner) each file builds its own, into the directory it gives.
const run = promisify(execFile);
const ROOT = path.resolve('.');

export interface ReleaseFolder {
  /** The folder: tarballs, SBOMs, the example app, SHA256SUMS. */
  dir: string;
  /** What the release script printed. */
  printed: string;
}

/** The release folders of run `id` (and their lock, output and failure files) all start with this. */
export const releasePrefix = (id: string): string => path.join(tmpdir(), `tgbff-test-release-${id}`);

async function build(dir: string): Promise<string> {
  const { stdout } = await run(process.execPath, ['scripts/release.mjs', '--skip-build', '--no-image', '--out', dir], {
    cwd: ROOT,
    maxBuffer: 16 * 1024 * 1024,
  });
  return stdout;
}

/**
 * The run's release folder, built by whichever caller comes first (an exclusive mkdir of its lock decides);
 * the others wait for it (a whole release on a busy machine: minutes at most). `ownDir` is where a caller
 * outside a jest run with the globalSetup builds its own.
 */
export async function releaseFolder(ownDir: string): Promise<ReleaseFolder> {
  const id = process.env.TGBFF_TEST_RUN;
  if (!id) return { dir: ownDir, printed: await build(ownDir) };
  const dir = releasePrefix(id);
  const [printedFile, failedFile] = [`${dir}.printed`, `${dir}.failed`];
  let builder = true;
  await mkdir(`${dir}.lock`).catch(() => (builder = false));
  if (builder) {
    const partial = `${dir}.partial`;
    try {
      const printed = await build(partial);
      await writeFile(printedFile, printed);
      await rename(partial, dir);
    } catch (err) {
      await writeFile(failedFile, String((err as { stderr?: string }).stderr || err));
      await rm(partial, { recursive: true, force: true });
      throw err;
    }
  } else {
    const outcome = await until(
      'the release folder another test file is building',
      () => (existsSync(failedFile) ? 'failed' : existsSync(dir) && existsSync(printedFile) ? 'built' : false),
      { timeoutMs: 600_000, intervalMs: 250 },
    );
    if (outcome === 'failed') throw new Error(`the release build failed:\n${await readFile(failedFile, 'utf8')}`);
  }
  return { dir, printed: await readFile(printedFile, 'utf8') };
}
