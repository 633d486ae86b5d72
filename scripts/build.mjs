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
//
// The service, CLI and simulator entries are bundled with esbuild into dist/bundle/ (scripts/bundle.mjs says
// why and how); dist/main.js, dist/cli/main.js and dist/simulator/cli.js load their bundle.
import { execFileSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { bundle, ENTRIES, stub } from './bundle.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');

/** Compiles `project` into a fresh sibling of `out`, then swaps it in; `dist/` is left as it was on failure. */
async function build(project, out, after = () => {}) {
  await swapIn(
    out,
    (fresh) => execFileSync(process.execPath, [tsc, '-p', project, '--outDir', fresh], { stdio: 'inherit' }),
    after,
  );
}

/** Fills a fresh sibling of `out` with `fill`, then `after`, then swaps it in; `out` is left as it was on failure. */
async function swapIn(out, fill, after = () => {}) {
  const fresh = join(dirname(out), `.dist-build-${process.pid}`);
  const retired = join(dirname(out), `.dist-old-${process.pid}`);
  rmSync(fresh, { recursive: true, force: true });
  try {
    fill(fresh);
    await after(fresh);
  } catch (err) {
    // tsc and esbuild have printed their errors; anything else has not.
    if (err.status === undefined && err.errors === undefined) console.error(err);
    rmSync(fresh, { recursive: true, force: true });
    console.error(`build failed: ${out} is left as it was`);
    process.exit(1);
  }
  // Two renames: the window without a dist/ lasts as long as one rename; the old tree goes after.
  if (existsSync(out)) renameSync(out, retired);
  renameSync(fresh, out);
  rmSync(retired, { recursive: true, force: true });
}

const only = process.argv[2];
if (only !== 'browser')
  await build(join(ROOT, 'packages/client/tsconfig.build.json'), join(ROOT, 'packages/client/dist'));
if (only !== 'client')
  await build(join(ROOT, 'packages/browser/tsconfig.build.json'), join(ROOT, 'packages/browser/dist'));
if (only === undefined) {
  await build(join(ROOT, 'tsconfig.build.json'), join(ROOT, 'dist'), async (fresh) => {
    await bundle(ROOT, fresh);
    for (const entry of ENTRIES) {
      writeFileSync(join(fresh, entry.stub), stub(entry));
      rmSync(join(fresh, `${entry.stub}.map`), { force: true }); // tsc's map of the file the stub replaced
    }
    chmodSync(join(fresh, 'cli/main.js'), 0o755);
    // GET /openapi.json serves this copy (src/http/routes/openapi-route.ts): a start then parses no YAML. A
    // tree without the document builds without it, and serves none (as OPENAPI_ROUTE says).
    const yaml = join(ROOT, 'docs/openapi.yaml');
    if (existsSync(yaml)) writeFileSync(join(fresh, 'openapi.json'), JSON.stringify(parse(readFileSync(yaml, 'utf8'))));
  });
  // The page needs the SDK's JavaScript only, copied from the build just made (declarations stay in the
  // package). Fresh directory, swapped in.
  const sdk = join(ROOT, 'packages/browser/dist');
  await swapIn(join(ROOT, 'public/sdk'), (fresh) => {
    cpSync(sdk, fresh, { recursive: true, filter: (from) => from === sdk || from.endsWith('.js') });
  });
}
