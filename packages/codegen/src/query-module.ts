import { commentSafe, mapParam, type ParamSpec } from './param-types.js';

/** `GET /endpoints/<graph>?dynamic=true`: `"<METHOD> <path>"` to `{ parameters }` (RESTPP and the simulator). */
export type EndpointListing = Record<string, { parameters?: Record<string, ParamSpec> | null } | null>;

/** What a project declares once (the config file's `results` and `imports`), for the generated module. */
export interface ModuleOptions {
  /**
   * A query's result row type, as TypeScript text (`"{ greeting: string }"`, `"Person"`): its function
   * returns `Promise<Row[]>` with no type argument at the call. Unnamed queries return `unknown[]`.
   */
  results?: Readonly<Record<string, string>> | undefined;
  /** Lines put after the SDK's import, for the types `results` names (`import type { Person } from './model.js';`). */
  imports?: readonly string[] | undefined;
  /**
   * Also a `<query>Async` function per query: the query started in Detached Mode (`client.runQueryAsync`),
   * answering its request id for `queryStatus`, `queryResult` and `abortQuery` (the service's DETACHED_QUERIES).
   */
  async?: boolean | undefined;
}

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

/** A declared result type is the project's own TypeScript; one line of it, bounded, and no comment closer. */
function resultType(name: string, text: string | undefined): string {
  if (text === undefined) return 'unknown';
  if (typeof text !== 'string' || !text.trim() || text.length > 4096 || /[\r\n\u2028\u2029]/.test(text))
    throw new TypeError(`results.${name} must be one line of TypeScript naming the query's row type`);
  return text.trim();
}

/**
 * A TypeScript module with one function per installed query of `graph`: parameters typed from the listing,
 * GET when the listing offers it (parameters in the query string), else POST (a JSON body). Names come from
 * the data server, so only GSQL identifiers are used as they are; anything else is skipped and said.
 */
export function generateQueryModule(
  graph: string,
  listing: EndpointListing,
  source: string,
  options: ModuleOptions = {},
): GeneratedModule {
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
    const row = `${pascal(name)}Result`;
    const detached = options.async === true ? `${fn}Async` : undefined;
    const clash = [fn, type, row, ...(detached === undefined ? [] : [detached])].find((n) => taken.has(n));
    if (clash !== undefined) {
      skipped.push(`${name}: its name ${clash} is taken by ${taken.get(clash)}`);
      continue;
    }
    taken.set(fn, `query ${name}`).set(type, `query ${name}`).set(row, `query ${name}`);
    if (detached !== undefined) taken.set(detached, `query ${name}`);
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
      // `| undefined` beside `?`: a caller under exactOptionalPropertyTypes may pass a value it may not have.
      const ts = mapped.optional ? `?: ${mapped.ts} | undefined` : `: ${mapped.ts}`;
      const text = `  /** ${mapped.source}${mapped.optional ? '' : ', required'} */\n  ${param}${ts};`;
      fields.push({ text, optional: mapped.optional });
    }
    const anyRequired = fields.some((f) => !f.optional);
    const declared = Object.hasOwn(options.results ?? {}, name) ? options.results?.[name] : undefined;
    blocks.push(
      [
        `export type ${type} = {${fields.length ? `\n${fields.map((f) => f.text).join('\n')}\n` : ''}};`,
        '',
        `/** A row of the query's \`results\`${declared === undefined ? ' (declare it in the config\'s "results")' : ''}. */`,
        `export type ${row} = ${resultType(name, declared)};`,
        '',
        `/** ${method} /query/${commentSafe(graph)}/${name}: the query's \`results\`. */`,
        `export function ${fn}<T = ${row}>(`,
        `  client: TgbffClient,`,
        `  params: ${type}${anyRequired ? '' : ' = {}'},`,
        `  options: CallOptions = {},`,
        `): Promise<T[]> {`,
        `  return client.runQuery<T>(GRAPH, ${JSON.stringify(name)}, params, { ...options, method: '${method}' });`,
        `}`,
        ...(detached === undefined
          ? []
          : [
              '',
              `/** ${method} /query/${commentSafe(graph)}/${name} in Detached Mode (GSQL-ASYNC): its request id. */`,
              `export function ${detached}(`,
              `  client: TgbffClient,`,
              `  params: ${type}${anyRequired ? '' : ' = {}'},`,
              `  options: CallOptions = {},`,
              `): Promise<string> {`,
              `  return client.runQueryAsync(GRAPH, ${JSON.stringify(name)}, params, { ...options, method: '${method}' });`,
              `}`,
            ]),
      ].join('\n'),
    );
    queries.push({ name, method });
  }
  for (const name of Object.keys(options.results ?? {}))
    if (!queries.some((q) => q.name === name))
      skipped.push(`results.${commentSafe(name)}: the graph lists no such query`);

  const header = [
    `// Generated by @tigergraph-bff/codegen (--graph ${commentSafe(graph)}) from ${commentSafe(source)}. Do not edit: run it again.`,
    `// One function per installed query of graph ${commentSafe(graph)}, calling @tigergraph-bff/browser.`,
    `import type { ${[...uses].sort().join(', ')} } from '@tigergraph-bff/browser';`,
    ...(options.imports ?? []).map((line) => {
      if (!/^import type \{[\w\s,]+\} from '[^'\r\n]+';$/.test(line.trim()))
        throw new TypeError(
          `imports: each must be one \`import type { A, B } from '…';\` line, got ${JSON.stringify(line)}`,
        );
      return line.trim();
    }),
    '',
    `export const GRAPH = ${JSON.stringify(graph)};`,
  ];
  return { text: `${[...header, '', blocks.join('\n\n')].join('\n').trimEnd()}\n`, queries, skipped };
}
