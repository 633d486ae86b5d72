// `npm run build`: compiles src/ into a fresh directory, then swaps it in for dist/.
//
// Never in place: a service, simulator or CLI running from this checkout keeps its files until the new tree
// is complete (a wipe-then-compile pulled them from under it, and left nothing when tsc failed), and no stale
// file of an earlier build survives into a pack. The CLI entry is made executable here, since tsc writes
// new files without the mode bit (`npx tgbff` answered "Permission denied" after every rebuild).
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, renameSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';

const OUT = 'dist';
const fresh = `.dist-build-${process.pid}`;
const retired = `.dist-old-${process.pid}`;
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');

rmSync(fresh, { recursive: true, force: true });
try {
  execFileSync(process.execPath, [tsc, '-p', 'tsconfig.build.json', '--outDir', fresh], { stdio: 'inherit' });
} catch {
  rmSync(fresh, { recursive: true, force: true });
  console.error(`build failed: ${OUT}/ is left as it was`);
  process.exit(1);
}
chmodSync(`${fresh}/cli/main.js`, 0o755);
// Two renames: the window without a dist/ lasts as long as one rename; the old tree goes after.
if (existsSync(OUT)) renameSync(OUT, retired);
renameSync(fresh, OUT);
rmSync(retired, { recursive: true, force: true });
