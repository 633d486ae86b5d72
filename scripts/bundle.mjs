// The processes' entry points, bundled (called by scripts/build.mjs, into the fresh dist/ before it is swapped
// in). Node 20 has no module compile cache, and a service start spent ~0.55 s of CPU resolving, reading and
// compiling some 700 files (ours, undici, zod, ioredis ...) before it served anything. esbuild puts them in a
// few files: dist/bundle/main.js (the service), tgbff.js (the CLI) and sim.js (the simulator), with the code
// they share and the parts they load only when used (the in-process simulator, OpenTelemetry, OIDC, each CLI
// command) in chunks beside them, still loaded only when used.
//
// dist/main.js, dist/cli/main.js and dist/simulator/cli.js, the paths the image, `npm start`, the `tgbff` bin,
// the compose file and the tests run, become one-line stubs that import their bundle. The rest of dist/ (the
// library, dist/index.js and dist/simulator/index.js) stays tsc's output.
//
// Source maps: each bundle file has its .map beside it, but Node does not read them unless asked
// (`NODE_OPTIONS=--enable-source-maps`), so a stack trace names dist/bundle/<file>:line:column and the
// function. Turned on by default they cost every start ~4 % more CPU and ~10 MiB, and every stack formatted
// after: Node's stream destroy() reads err.stack, so each aborted request was mapped (400 ms of the service's
// CPU in one 1 s c=50 benchmark run, where the first requests waited 1-2 s), a cost any client that aborts
// requests could make us pay.
import { readFile } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { build } from 'esbuild';

/** The entry points: their stub in dist/, the bundle the stub loads from dist/bundle/, and the source. */
export const ENTRIES = [
  { stub: 'main.js', bundle: 'main', source: 'src/main.ts' },
  { stub: 'cli/main.js', bundle: 'tgbff', source: 'src/cli/main.ts' },
  { stub: 'simulator/cli.js', bundle: 'sim', source: 'src/simulator/cli.ts' },
];

const posix = (path) => path.split(sep).join('/');

/**
 * Every bundled module sees the location it has outside the bundle: `import.meta.url` in src/x.ts is that of
 * its tsc twin dist/x.js (version.ts reads ../../package.json, app.ts ../public, openapi-route.ts docs/ and
 * dist/openapi.json, yaml.ts requires `yaml` from there), and `__dirname`/`__filename` in a CommonJS package
 * are those of its own file (ioredis reads its package.json for CLIENT SETINFO). Both are computed from
 * __tgbffRoot, the package root as the banner finds it from the bundle's own URL.
 */
function ownLocations(root) {
  const atRoot = (file) => `new URL(${JSON.stringify(posix(relative(root, file)))}, __tgbffRoot)`;
  return {
    name: 'own-locations',
    setup(b) {
      b.onLoad({ filter: /\.ts$/ }, async ({ path }) => {
        const text = await readFile(path, 'utf8');
        const twin = join(root, 'dist', relative(join(root, 'src'), path)).replace(/\.ts$/, '.js');
        return { contents: text.replaceAll('import.meta.url', `${atRoot(twin)}.href`), loader: 'ts' };
      });
      b.onLoad({ filter: /[\\/]node_modules[\\/].*\.c?js$/ }, async ({ path }) => {
        const text = await readFile(path, 'utf8');
        if (!/__dirname|__filename/.test(text)) return undefined;
        const file = `require('node:url').fileURLToPath(${atRoot(path)})`;
        return {
          contents: `var __filename = ${file}, __dirname = require('node:path').dirname(__filename);\n${text}`,
          loader: 'js',
        };
      });
    },
  };
}

/** Bundles ENTRIES into `dist`/bundle (`dist` is the fresh tree, whose `bundle/` is two levels below `root`). */
export async function bundle(root, dist) {
  const result = await build({
    absWorkingDir: root,
    entryPoints: Object.fromEntries(ENTRIES.map((e) => [e.bundle, e.source])),
    outdir: join(dist, 'bundle'),
    bundle: true,
    splitting: true,
    chunkNames: 'chunk-[hash]',
    platform: 'node',
    format: 'esm',
    target: 'node20',
    tsconfig: 'tsconfig.build.json',
    // Names and lines only: enough to map a stack trace, and the map stays small.
    sourcemap: 'linked',
    sourcesContent: false,
    // CommonJS packages (express, ioredis, pino ...) call require() for Node's own modules.
    banner: {
      js: [
        "import { createRequire as __tgbffCreateRequire } from 'node:module';",
        "const __tgbffRoot = new URL('../../', import.meta.url);",
        'const require = __tgbffCreateRequire(import.meta.url);',
      ].join('\n'),
    },
    plugins: [ownLocations(root)],
    logLevel: 'warning',
  });
  if (result.errors.length > 0) throw new Error('bundle failed');
}

/** The stub at `entry.stub`, which runs its bundle. */
export function stub(entry) {
  const up = entry.stub.includes('/') ? '../' : './';
  return [
    '#!/usr/bin/env node',
    `// Written by scripts/bundle.mjs: the code is ${up}bundle/${entry.bundle}.js, built from ${entry.source}.`,
    `import '${up}bundle/${entry.bundle}.js';`,
    '',
  ].join('\n');
}
