// `npm run build`: compiles the client package (packages/client, which the service imports as
// @tigergraph-bff/client) and then the service, each into a fresh directory that is swapped in for its dist/.
// `node scripts/build.mjs client` builds the client package alone (its own `npm run build`), `browser` the
// browser SDK (packages/browser) alone, `codegen` the query-function generator (packages/codegen, which the
// service's `tgbff codegen` runs) alone. A full build also copies the SDK's ESM files into public/sdk/, where
// the demo page imports them from the service's own origin (the CSP allows scripts from 'self' only).
//
// Never in place: a service, simulator or CLI running from this checkout keeps its files until the new tree
// is complete (a wipe-then-compile pulled them from under it, and left nothing when tsc failed), and no stale
// file of an earlier build survives into a pack. The CLI entry is made executable here, since tsc writes
// new files without the mode bit (`npx tgbff` answered "Permission denied" after every rebuild).
//
// The service, CLI and simulator entries are bundled with esbuild into dist/bundle/ (scripts/bundle.mjs says
// why and how); dist/main.js, dist/cli/main.js and dist/simulator/cli.js load their bundle.
import { spawn } from 'node:child_process';
import { chmodSync, cpSync, existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { bundle, ENTRIES, stub } from './bundle.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');

/** Runs tsc on `project` into `outDir`, its output on ours; rejects with the exit status (tsc printed why). */
function runTsc(project, outDir) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [tsc, '-p', project, '--outDir', outDir], { stdio: 'inherit' });
    child.on('error', reject);
    child.on('exit', (code, signal) =>
      code === 0 ? resolve() : reject(Object.assign(new Error(`tsc ${signal ?? code}`), { status: code ?? 1 })),
    );
  });
}

/** Compiles `project` into a fresh sibling of `out`, then swaps it in; `dist/` is left as it was on failure. */
async function build(project, out, after = () => {}) {
  await swapIn(out, (fresh) => runTsc(project, fresh), after);
}

/** Fills a fresh sibling of `out` with `fill`, then `after`, then swaps it in; `out` is left as it was on failure. */
async function swapIn(out, fill, after = () => {}) {
  const fresh = join(dirname(out), `.dist-build-${process.pid}`);
  const retired = join(dirname(out), `.dist-old-${process.pid}`);
  rmSync(fresh, { recursive: true, force: true });
  try {
    await fill(fresh);
    await after(fresh);
  } catch (err) {
    // tsc and esbuild have printed their errors; anything else has not.
    if (err.status === undefined && err.errors === undefined) console.error(err);
    rmSync(fresh, { recursive: true, force: true });
    console.error(`build failed: ${out} is left as it was`);
    throw Object.assign(new Error(`build of ${out} failed`), { reported: true });
  }
  // Two renames: the window without a dist/ lasts as long as one rename; the old tree goes after.
  if (existsSync(out)) renameSync(out, retired);
  renameSync(fresh, out);
  rmSync(retired, { recursive: true, force: true });
}

const only = process.argv[2];
// The browser SDK needs nothing of the others: it compiles beside the client package and the service (two
// cores, about 6 s less than one after the other); the service needs the client package's declarations.
const client = () => build(join(ROOT, 'packages/client/tsconfig.build.json'), join(ROOT, 'packages/client/dist'));
const browser = () => build(join(ROOT, 'packages/browser/tsconfig.build.json'), join(ROOT, 'packages/browser/dist'));
const codegen = () =>
  build(join(ROOT, 'packages/codegen/tsconfig.build.json'), join(ROOT, 'packages/codegen/dist'), (fresh) =>
    chmodSync(join(fresh, 'cli.js'), 0o755),
  );
const service = () =>
  build(join(ROOT, 'tsconfig.build.json'), join(ROOT, 'dist'), async (fresh) => {
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

/** Waits for every build (one that fails does not cut the others short: each cleans up its fresh tree). */
async function all(...builds) {
  const failed = (await Promise.allSettled(builds)).filter((result) => result.status === 'rejected');
  if (failed.length === 0) return;
  for (const { reason } of failed) if (!reason?.reported) console.error(reason);
  process.exit(1);
}

if (only === 'client') await all(client());
else if (only === 'browser') await all(browser());
else if (only === 'codegen') await all(codegen());
else {
  // Both settled before the service (not Promise.all): a failed one must not exit the process while the other
  // is still filling its fresh tree.
  const packages = Promise.allSettled([client(), codegen()]).then((results) => {
    const failed = results.find((result) => result.status === 'rejected');
    if (failed) throw failed.reason;
  });
  await all(packages.then(service), browser());
  // The page needs the SDK's JavaScript only, copied from the build just made (declarations stay in the
  // package). Fresh directory, swapped in.
  const sdk = join(ROOT, 'packages/browser/dist');
  await all(
    swapIn(join(ROOT, 'public/sdk'), (fresh) => {
      cpSync(sdk, fresh, { recursive: true, filter: (from) => from === sdk || from.endsWith('.js') });
    }),
  );
}
