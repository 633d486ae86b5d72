import { commentSafe, mapParam, type ParamSpec } from './param-types.js';

/** `GET /endpoints/<graph>?dynamic=true`: `"<METHOD> <path>"` to `{ parameters }` (RESTPP and the simulator). */
export type EndpointListing = Record<string, { parameters?: Record<string, ParamSpec> | null } | null>;

export interface GeneratedModule {
  text: string;
  /** The queries written, by name, and the method each function uses. */
  queries: Array<{ name: string; method: 'GET' | 'POST' }>;
  /** Entries left out, each with why (an unusable name, another graph's path). */
  skipped: string[];
}

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;
// ECMAScript reserved words and strict-mode ones that cannot name a function.
const RESERVED = new Set(
  (
    'break case catch class const continue debugger default delete do else enum export extends false finally ' +
    'for function if import in instanceof new null return super switch this throw true try typeof var void ' +
    'while with yield let static implements interface package private protected public await arguments eval'
  ).split(' '),
);

const pascal = (name: string): string => name.charAt(0).toUpperCase() + name.slice(1);

/** Names the module itself declares or imports: a query's function or type must not take one. */
const MODULE_NAMES = ['GRAPH', 'CallOptions', 'TgbffClient', 'VertexRef', 'ParamValue'];

/**
 * A TypeScript module with one function per installed query of `graph`: parameters typed from the listing,
 * GET when the listing offers it (parameters in the query string), else POST (a JSON body). Names come from
 * the data server, so only GSQL identifiers are used as they are; anything else is skipped and said.
 */
export function generateQueryModule(graph: string, listing: EndpointListing, source: string): GeneratedModule {
  const skipped: string[] = [];
  const byName = new Map<string, { methods: Set<string>; parameters: Map<string, ParamSpec> }>();
  const prefix = `/query/${graph}/`;
  for (const [key, entry] of Object.entries(listing)) {
    const [method = '', path = ''] = key.split(' ');
    if (!path.startsWith(prefix)) continue;
    const name = path.slice(prefix.length);
    if (!IDENTIFIER.test(name)) {
      skipped.push(`${commentSafe(key)}: not a GSQL query name`);
      continue;
    }
    if (method !== 'GET' && method !== 'POST') continue;
    const seen = byName.get(name) ?? { methods: new Set<string>(), parameters: new Map<string, ParamSpec>() };
    seen.methods.add(method);
    // A Map, not Object.assign: a parameter named `__proto__` is a name like any other, not a prototype.
    for (const [param, spec] of Object.entries(entry?.parameters ?? {})) seen.parameters.set(param, spec);
    byName.set(name, seen);
  }

  const uses = new Set<string>(['CallOptions', 'TgbffClient']);
  const blocks: string[] = [];
  const queries: GeneratedModule['queries'] = [];
  // Every name the module declares, with who took it: a second query wanting it is skipped and said
  // (`Foo` and `foo` both want `FooParams`; `delete` becomes `deleteQuery`, which a query may be named).
  const taken = new Map<string, string>(MODULE_NAMES.map((n) => [n, 'the module']));
  for (const [name, { methods, parameters }] of [...byName].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const fn = RESERVED.has(name) || taken.has(name) ? `${name}Query` : name;
    const type = `${pascal(name)}Params`;
    const clash = [fn, type].find((n) => taken.has(n));
    if (clash !== undefined) {
      skipped.push(`${name}: its name ${clash} is taken by ${taken.get(clash)}`);
      continue;
    }
    taken.set(fn, `query ${name}`).set(type, `query ${name}`);
    const method = methods.has('GET') ? 'GET' : 'POST';
    const fields: Array<{ text: string; optional: boolean }> = [];
    for (const [param, spec] of [...parameters].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      // RESTPP lists the query's own name as a parameter `query`, and `<p>.type` beside an untyped vertex.
      if (param === 'query' && spec?.default === name) continue;
      if (param.endsWith('.type') && parameters.has(param.slice(0, -'.type'.length))) continue;
      if (!IDENTIFIER.test(param)) {
        skipped.push(`${name}(${commentSafe(param)}): not a GSQL parameter name`);
        continue;
      }
      const mapped = mapParam(spec);
      mapped.uses.forEach((u) => uses.add(u));
      const text = `  /** ${mapped.source} */\n  ${param}${mapped.optional ? '?' : ''}: ${mapped.ts};`;
      fields.push({ text, optional: mapped.optional });
    }
    const anyRequired = fields.some((f) => !f.optional);
    blocks.push(
      [
        `export type ${type} = {${fields.length ? `\n${fields.map((f) => f.text).join('\n')}\n` : ''}};`,
        '',
        `/** ${method} /query/${commentSafe(graph)}/${name}: the query's \`results\`. */`,
        `export function ${fn}<T = unknown>(`,
        `  client: TgbffClient,`,
        `  params: ${type}${anyRequired ? '' : ' = {}'},`,
        `  options: CallOptions = {},`,
        `): Promise<T[]> {`,
        `  return client.runQuery<T>(GRAPH, ${JSON.stringify(name)}, params, { ...options, method: '${method}' });`,
        `}`,
      ].join('\n'),
    );
    queries.push({ name, method });
  }

  const header = [
    `// Generated by \`tgbff codegen --graph ${commentSafe(graph)}\` from ${commentSafe(source)}. Do not edit: run it again.`,
    `// One function per installed query of graph ${commentSafe(graph)}, calling @tigergraph-bff/browser.`,
    `import type { ${[...uses].sort().join(', ')} } from '@tigergraph-bff/browser';`,
    '',
    `export const GRAPH = ${JSON.stringify(graph)};`,
  ];
  return { text: `${[...header, '', blocks.join('\n\n')].join('\n').trimEnd()}\n`, queries, skipped };
}
