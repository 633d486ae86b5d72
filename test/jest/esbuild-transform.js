// jest's transform for .ts files: esbuild strips the types, file by file, into ESM (tsconfig.json has
// isolatedModules, so no file needs another to compile; `npm run lint` type-checks). The same compiler as the
// bundle (scripts/bundle.mjs); no new dependency.
//
// Why not ts-jest (used until 0.4.0): each jest worker loaded the TypeScript compiler (about 1 s of CPU) and
// compiled with it, and on a fresh clone jest's transform cache is empty, so the workers of a run compiled the
// same modules side by side. The measured difference is in the commit that made the change.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { transformSync, version } from 'esbuild';

// What changes the output besides the file itself: this file, esbuild's version and the compiler options it
// reads (ES2022 class fields, as tsc emits them for the build).
const SELF = createHash('sha256')
  .update(readFileSync(new URL(import.meta.url), 'utf8'))
  .update(version)
  .digest('hex');
const TSCONFIG = { compilerOptions: { useDefineForClassFields: true, verbatimModuleSyntax: false } };

export default {
  canInstrument: false,
  getCacheKey(source, path, options) {
    const esm = options.supportsStaticESM ? 'esm' : 'cjs';
    return createHash('sha256').update(SELF).update(esm).update(path).update('\0').update(source).digest('hex');
  },
  process(source, path, options) {
    const { code, map } = transformSync(source, {
      loader: 'ts',
      format: options.supportsStaticESM ? 'esm' : 'cjs',
      target: 'node20',
      sourcefile: path,
      sourcemap: 'external',
      sourcesContent: false,
      tsconfigRaw: TSCONFIG,
    });
    return { code, map };
  },
};
