// `npm run build`: compiles the client package (packages/client, which the service imports as
// @tigergraph-bff/client) and then the service, each into a fresh directory that is swapped in for its dist/.
// `node scripts/build.mjs client` builds the client package alone (its own `npm run build`), `browser` the
// browser SDK (packages/browser) alone. A full build also copies the SDK's ESM files into public/sdk/, where
// the demo page imports them from the service's own origin (the CSP allows scripts from 'self' only).
//
// Never in place: a service, simulator or CLI running from this checkout keeps its files until the new tree
// is complete (a wipe-then-compile pulled them from under it, and left nothing when tsc failed), and no stale
// file of an earlier build survives into a pack. The CLI entry is made executable here, since tsc writes
// new files without the mode bit (`npx tgbff` answered "Permission denied" after every rebuild).
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');

/** Compiles `project` into a fresh sibling of `out`, then swaps it in; `dist/` is left as it was on failure. */
function build(project, out, after = () => {}) {
  const fresh = join(dirname(out), `.dist-build-${process.pid}`);
  const retired = join(dirname(out), `.dist-old-${process.pid}`);
  rmSync(fresh, { recursive: true, force: true });
  try {
    execFileSync(process.execPath, [tsc, '-p', project, '--outDir', fresh], { stdio: 'inherit' });
  } catch {
    rmSync(fresh, { recursive: true, force: true });
    console.error(`build failed: ${out} is left as it was`);
    process.exit(1);
  }
  after(fresh);
  // Two renames: the window without a dist/ lasts as long as one rename; the old tree goes after.
  if (existsSync(out)) renameSync(out, retired);
  renameSync(fresh, out);
  rmSync(retired, { recursive: true, force: true });
}

const only = process.argv[2];
if (only !== 'browser') build(join(ROOT, 'packages/client/tsconfig.build.json'), join(ROOT, 'packages/client/dist'));
if (only !== 'client') build(join(ROOT, 'packages/browser/tsconfig.build.json'), join(ROOT, 'packages/browser/dist'));
if (only === undefined) {
  build(join(ROOT, 'tsconfig.build.json'), join(ROOT, 'dist'), (fresh) => chmodSync(join(fresh, 'cli/main.js'), 0o755));
  // The page needs the JavaScript only; declarations stay in the package. Fresh directory, swapped in.
  build(join(ROOT, 'packages/browser/tsconfig.build.json'), join(ROOT, 'public/sdk'), (fresh) => {
    for (const name of readdirSync(fresh)) if (!name.endsWith('.js')) rmSync(join(fresh, name));
  });
}
