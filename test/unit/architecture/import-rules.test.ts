import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

// The import rules of docs/architecture.md, checked on the source so a change that breaks one fails here.
const SRC = fileURLToPath(new URL('../../../src/', import.meta.url));

interface Import {
  from: string;
  target: string;
  typeOnly: boolean;
  /** `import('…')`: loaded when the code runs, not when the importing module loads. */
  dynamic: boolean;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [full] : [];
  });
}

/** Every import and re-export of a file; relative targets resolved to paths under src/ ("http/routes/x.ts"). */
function importsOf(file: string): Import[] {
  const text = readFileSync(file, 'utf8');
  const found: Import[] = [];
  const pattern = /^(?:import|export)\s+(type\s+)?(?:[^'";]*?\s+from\s+)?'([^']+)'|import\(\s*'([^']+)'\s*\)/gm;
  for (const m of text.matchAll(pattern)) {
    const spec = (m[2] ?? m[3]) as string;
    const target = spec.startsWith('.')
      ? path.relative(SRC, path.resolve(path.dirname(file), spec)).replace(/\.js$/, '.ts')
      : spec;
    found.push({ from: path.relative(SRC, file), target, typeOnly: m[1] !== undefined, dynamic: m[3] !== undefined });
  }
  return found;
}

const all = sourceFiles(SRC).flatMap(importsOf);
const under = (dir: string) => (i: Import) => i.from.startsWith(dir);
const show = (list: Import[]) => list.map((i) => `${i.from} -> ${i.target}`);

describe('import rules (docs/architecture.md)', () => {
  it('when a module below the HTTP layer imports, then never express nor anything of http/, app or service', () => {
    const lower = [
      'tokens/',
      'store/',
      'tigergraph/',
      'relay/',
      'config/',
      'observability/',
      'simulator/',
      'oidc/',
      'quota/',
    ];
    const bad = all.filter(
      (i) =>
        lower.some((dir) => i.from.startsWith(dir)) &&
        (i.target === 'express' || i.target.startsWith('http/') || i.target === 'app.ts' || i.target === 'service.ts'),
    );
    expect(show(bad)).toEqual([]);
  });

  it('when a pipeline step or the session layer imports, then never a route or the server plumbing, and express only for types', () => {
    const inner = all.filter((i) => under('http/pipeline/')(i) || under('http/session/')(i));
    const bad = inner.filter(
      (i) =>
        i.target.startsWith('http/routes/') ||
        i.target.startsWith('http/server/') ||
        (i.target === 'express' && !i.typeOnly),
    );
    expect(show(bad)).toEqual([]);
  });

  it('when a schema imports, then never a step, the session layer, a route or the server plumbing', () => {
    const bad = all.filter(
      (i) => under('http/schemas/')(i) && /^http\/(pipeline|session|routes|server)\//.test(i.target),
    );
    expect(show(bad)).toEqual([]);
  });

  it('when a route imports, then never the server plumbing', () => {
    expect(show(all.filter((i) => under('http/routes/')(i) && i.target.startsWith('http/server/')))).toEqual([]);
  });

  it('when any module imports, then never express-session or connect-redis, and the package does not depend on them', () => {
    // The service owns its session layer (src/http/session, src/store/session-store.ts); the two remain
    // dev dependencies only for the benchmark's plain peer (bench/plain-peer.ts).
    const legacy = ['express-session', 'connect-redis'];
    expect(show(all.filter((i) => legacy.includes(i.target)))).toEqual([]);
    const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as {
      dependencies: Record<string, string>;
    };
    expect(Object.keys(pkg.dependencies).filter((name) => legacy.includes(name))).toEqual([]);
  });

  it('when single sign-on is off, then nothing loads src/oidc, openid-client or jose (only service.ts, dynamically, when it is on)', () => {
    // About 10 MB of RSS per replica for a feature most deployments leave off.
    const eager = all.filter((i) => !i.typeOnly && !i.dynamic && !i.from.startsWith('oidc/'));
    const bad = eager.filter(
      (i) =>
        (i.target.startsWith('oidc/') && i.target !== 'oidc/logout-token-error.ts') ||
        /^(openid-client|jose)(\/|$)/.test(i.target),
    );
    expect(show(bad)).toEqual([]);
    expect(all.filter((i) => i.dynamic && i.target === 'oidc/oidc-parts.ts').map((i) => i.from)).toEqual([
      'service.ts',
    ]);
  });

  it('when the rules scan, then they see the imports (the scan itself works)', () => {
    expect(all.some((i) => i.from === 'app.ts' && i.target === 'http/pipeline/pipeline.ts')).toBe(true);
    expect(all.some((i) => i.from.startsWith('http/routes/') && i.target === 'express')).toBe(true);
  });
});
