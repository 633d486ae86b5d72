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
      'sessions/',
      'admin/',
      'tokens/',
      'store/',
      'crypto/',
      'cache/',
      'relay/',
      'config/',
      'observability/',
      'simulator/',
      'oidc/',
      'quota/',
      'mcp/',
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

  it('when a route, a limit or a route helper imports, then never the server plumbing; helpers and limits never a router', () => {
    const routeSide = ['http/routes/', 'http/limits/', 'http/route-helpers/'];
    expect(
      show(all.filter((i) => routeSide.some((d) => i.from.startsWith(d)) && i.target.startsWith('http/server/'))),
    ).toEqual([]);
    const helpers = all.filter((i) => i.from.startsWith('http/limits/') || i.from.startsWith('http/route-helpers/'));
    expect(show(helpers.filter((i) => i.target.startsWith('http/routes/')))).toEqual([]);
  });

  it('when src/http/routes/ is listed, then it holds routers (and the /api lane) only', () => {
    const routes = readdirSync(path.join(SRC, 'http/routes')).filter((f) => f.endsWith('.ts'));
    expect(routes.filter((f) => !f.endsWith('-routes.ts') && !f.endsWith('-route.ts') && f !== 'api-lane.ts')).toEqual(
      [],
    );
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
    const eager = all.filter(
      (i) => !i.typeOnly && !i.dynamic && !i.from.startsWith('oidc/') && !i.from.startsWith('mcp/'),
    );
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

  it('when the MCP endpoint is off, then nothing loads src/mcp or the MCP SDK (only service.ts, dynamically, when it is on)', () => {
    const eager = all.filter((i) => !i.typeOnly && !i.dynamic && !i.from.startsWith('mcp/'));
    const bad = eager.filter(
      (i) =>
        (i.target.startsWith('mcp/') && i.target !== 'mcp/paths.ts') || i.target.startsWith('@modelcontextprotocol/'),
    );
    expect(show(bad)).toEqual([]);
    expect(all.filter((i) => i.dynamic && i.target === 'mcp/mcp-endpoint.ts').map((i) => i.from)).toEqual([
      'service.ts',
    ]);
  });

  it('when the client package (packages/client) imports, then only its own files, node: built-ins and undici', () => {
    // It is published on its own: a server dependency here would be pulled into every user's project.
    const CLIENT = fileURLToPath(new URL('../../../packages/client/src/', import.meta.url));
    const imports = sourceFiles(CLIENT).flatMap((file) =>
      [
        ...readFileSync(file, 'utf8').matchAll(/^(?:import|export)\s+(?:type\s+)?(?:[^'";]*?\s+from\s+)?'([^']+)'/gm),
      ].map((m) => ({ file: path.relative(CLIENT, file), spec: m[1]! })),
    );
    expect(imports.length).toBeGreaterThan(20);
    const outside = imports.filter(
      ({ file, spec }) =>
        !(
          spec === 'undici' ||
          spec.startsWith('node:') ||
          (spec.startsWith('./') && !path.join(path.dirname(file), spec).startsWith('..'))
        ),
    );
    expect(outside.map(({ file, spec }) => `${file} -> ${spec}`)).toEqual([]);
  });

  it('when the browser SDK (packages/browser) imports, then only its own files: no dependency, no node: built-in', () => {
    // It runs in browsers and is copied into the demo page's static files as it is: nothing to resolve.
    const BROWSER = fileURLToPath(new URL('../../../packages/browser/src/', import.meta.url));
    const imports = sourceFiles(BROWSER).flatMap((file) =>
      [
        ...readFileSync(file, 'utf8').matchAll(/^(?:import|export)\s+(?:type\s+)?(?:[^'";]*?\s+from\s+)?'([^']+)'/gm),
      ].map((m) => ({ file: path.relative(BROWSER, file), spec: m[1]! })),
    );
    expect(imports.length).toBeGreaterThan(10);
    const outside = imports.filter(({ spec }) => !/^\.\/[\w-]+\.js$/.test(spec));
    expect(outside.map(({ file, spec }) => `${file} -> ${spec}`)).toEqual([]);
  });

  it('when the code generator (packages/codegen) imports, then only its own files and node: built-ins', () => {
    // A frontend project installs it as a dev tool: it brings no dependency along.
    const CODEGEN = fileURLToPath(new URL('../../../packages/codegen/src/', import.meta.url));
    const imports = sourceFiles(CODEGEN).flatMap((file) =>
      [
        ...readFileSync(file, 'utf8').matchAll(/^(?:import|export)\s+(?:type\s+)?(?:[^'";]*?\s+from\s+)?'([^']+)'/gm),
      ].map((m) => ({ file: path.relative(CODEGEN, file), spec: m[1]! })),
    );
    expect(imports.length).toBeGreaterThan(5);
    const outside = imports.filter(({ spec }) => !/^(\.\/[\w-]+\.js|node:[\w/]+)$/.test(spec));
    expect(outside.map(({ file, spec }) => `${file} -> ${spec}`)).toEqual([]);
  });

  it('when src/ uses the client library, then by its package name, never by a path into packages/', () => {
    expect(show(all.filter((i) => i.target.includes('packages/') || i.target.startsWith('tigergraph/')))).toEqual([]);
    expect(all.some((i) => i.target === '@tigergraph-bff/client')).toBe(true);
  });

  it('when modules import each other, then never in a circle (type-only imports count: they tie the files as much)', () => {
    const graph = new Map<string, string[]>();
    for (const i of all) if (i.target.endsWith('.ts')) graph.set(i.from, [...(graph.get(i.from) ?? []), i.target]);
    const circles: string[] = [];
    const state = new Map<string, 'open' | 'done'>();
    const visit = (file: string, path: string[]): void => {
      if (state.get(file) === 'done') return;
      if (state.get(file) === 'open') {
        circles.push([...path.slice(path.indexOf(file)), file].join(' -> '));
        return;
      }
      state.set(file, 'open');
      for (const next of graph.get(file) ?? []) visit(next, [...path, file]);
      state.set(file, 'done');
    };
    for (const file of graph.keys()) visit(file, []);
    expect(circles).toEqual([]);
  });

  it('when a lower folder imports, then never upwards: admin and sessions never a route, store never sessions or tokens, crypto and cache never a store', () => {
    const bad = all.filter(
      (i) =>
        (i.from.startsWith('admin/') && i.target.startsWith('http/')) ||
        (i.from.startsWith('sessions/') && i.target.startsWith('http/')) ||
        (i.from.startsWith('store/') && /^(sessions|tokens|admin|oidc)\//.test(i.target)) ||
        // Sealing and caches sit below the stores that use them.
        (/^(crypto|cache)\//.test(i.from) && /^(store|sessions|tokens|admin|oidc)\//.test(i.target)) ||
        // The two store implementations never lean on each other: each stands alone behind store/types.ts.
        (i.from.startsWith('store/memory/') && i.target.startsWith('store/redis/')) ||
        (i.from.startsWith('store/redis/') && i.target.startsWith('store/memory/')),
    );
    expect(show(bad)).toEqual([]);
  });

  it('when a Redis connection is built or given its command layers, then only in store/redis/connections.ts', () => {
    // The one module that builds every connection of the stores, each with its layers in their one order.
    const building =
      /\b(?:createRedisClient|replyBeforeTimeout|failFastWhileSilent|rideOutFailover|connectAgainWhenEnded)\(|\.duplicate\(/;
    const files = sourceFiles(SRC).filter((file) =>
      readFileSync(file, 'utf8')
        .split('\n')
        .some((line) => building.test(line) && !/\bfunction\s/.test(line)),
    );
    expect(files.map((file) => path.relative(SRC, file))).toEqual(['store/redis/connections.ts']);
  });

  it('when the HTTP layer imports, then never a Redis store (a request hands the stores its signal: store/store-call.ts)', () => {
    const bad = all.filter((i) => i.from.startsWith('http/') && i.target.startsWith('store/redis/'));
    expect(show(bad)).toEqual([]);
  });

  it('when the rules scan, then they see the imports (the scan itself works)', () => {
    expect(all.some((i) => i.from === 'app.ts' && i.target === 'http/pipeline/pipeline.ts')).toBe(true);
    expect(all.some((i) => i.from.startsWith('http/routes/') && i.target === 'express')).toBe(true);
    // The circle check sees type-only imports (a circle of them was one of issue 23's).
    expect(all.some((i) => i.typeOnly && i.from === 'http/pipeline/context.ts')).toBe(true);
  });
});
