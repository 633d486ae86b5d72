import { generateQueryModule, mapParam, type EndpointListing } from '@tigergraph-bff/codegen';
import { endpointsListing } from '../../../src/simulator/restpp-info.js';

// The two spellings of `GET /endpoints` a generator meets: the simulator's (GSQL declarations) and
// TigerGraph's RESTPP (wire types, is_id/id_type, min_count/max_count), as its built-in-endpoints docs show.
const TIGERGRAPH: EndpointListing = {
  'GET /query/social/people': {
    parameters: {
      query: { default: 'people', max_count: 1, min_count: 1, type: 'STRING' },
      age: { max_count: 1, min_count: 1, type: 'INT64' },
      score: { max_count: 1, min_count: 0, type: 'DOUBLE' },
      ids: { max_count: 2147483647, min_count: 0, type: 'UINT64' },
      active: { max_count: 1, min_count: 0, type: 'BOOL' },
      since: { max_count: 1, min_count: 0, type: 'DATETIME' },
      who: { id_type: 'Person', is_id: 'true', max_count: 1, min_count: 1, type: 'STRING' },
      anyone: { is_id: 'true', max_count: 1, min_count: 0, type: 'STRING' },
      'anyone.type': { max_count: 1, min_count: 0, type: 'STRING' },
      crowd: { id_type: 'Person', is_id: 'true', max_count: 100, min_count: 0, type: 'STRING' },
    },
  },
  'POST /query/social/people': { parameters: {} },
  'POST /query/social/write_only': { parameters: { n: { type: 'INT', min_count: 1, max_count: 1 } } },
  'GET /query/other/elsewhere': { parameters: {} },
  'GET /graph/{graph_name}/vertices/{vertex_type}': { parameters: {} },
};

describe('codegen: parameter types', () => {
  it.each([
    ['INT', 'number'],
    ['UINT', 'number'],
    ['FLOAT', 'number'],
    ['DOUBLE', 'number'],
    ['STRING', 'string'],
    ['BOOL', 'boolean'],
    ['DATETIME', 'string'],
    ['VERTEX<Person>', 'string'],
    ['VERTEX', 'VertexRef'],
    ['SET<INT>', 'readonly number[]'],
    ['LIST<STRING>', 'readonly string[]'],
    ['BAG<VERTEX<Person>>', 'readonly string[]'],
    ['SET<VERTEX>', 'readonly VertexRef[]'],
    ['MAP<INT,STRING>', 'ParamValue'],
  ])('when GSQL declares %s, then the TypeScript type is %s', (type, ts) => {
    expect(mapParam({ type }).ts).toBe(ts);
  });

  it('when min_count is 1 and no default, then the parameter is required; otherwise optional', () => {
    expect(mapParam({ type: 'INT64', min_count: 1 }).optional).toBe(false);
    expect(mapParam({ type: 'INT64', min_count: 0 }).optional).toBe(true);
    expect(mapParam({ type: 'INT64', min_count: 1, default: '3' }).optional).toBe(true);
    expect(mapParam({ type: 'INT' }).optional).toBe(true);
  });
});

describe('codegen: the module', () => {
  it("when TigerGraph's listing is read, then each query of the graph has a typed function, GET when offered", () => {
    const { text, queries, skipped } = generateQueryModule('social', TIGERGRAPH, 'test');
    expect(queries).toEqual([
      { name: 'people', method: 'GET' },
      { name: 'write_only', method: 'POST' },
    ]);
    expect(skipped).toEqual([]);
    expect(text).toContain("import type { CallOptions, TgbffClient, VertexRef } from '@tigergraph-bff/browser';");
    for (const line of [
      'age: number;',
      'score?: number | undefined;',
      'ids?: readonly number[] | undefined;',
      'active?: boolean | undefined;',
      'since?: string | undefined;',
      'who: string;',
      'anyone?: VertexRef | undefined;',
      'crowd?: readonly string[] | undefined;',
    ])
      expect([line, text.includes(line)]).toEqual([line, true]);
    // RESTPP's own `query` parameter and the `.type` beside an untyped vertex are not the caller's to give.
    expect(text).not.toMatch(/\bquery\??:/);
    expect(text).not.toContain('anyone.type');
    expect(text).toContain(`return client.runQuery<T>(GRAPH, "people", params, { ...options, method: 'GET' });`);
    expect(text).toContain(`return client.runQuery<T>(GRAPH, "write_only", params, { ...options, method: 'POST' });`);
    expect(text).not.toContain('elsewhere');
  });

  it("when the simulator's listing is read, then its four demo queries come out with GSQL's types", () => {
    const { text, queries } = generateQueryModule(
      'social',
      endpointsListing(['social'], { builtin: true, dynamic: true, static: false }) as EndpointListing,
      'test',
    );
    expect(queries.map((q) => `${q.name} ${q.method}`)).toEqual([
      'friends GET',
      'hello GET',
      'sleep GET',
      'stream GET',
    ]);
    // The simulator says required-ness as RESTPP does: `person` has no default, the others have one.
    expect(text).toContain('/** VERTEX<Person>, required */\n  person: string;');
    expect(text).toContain('/** INT */\n  chunks?: number | undefined;');
    expect(text).toContain('/** STRING */\n  name?: string | undefined;');
    expect(text).toContain('params: FriendsParams,\n');
  });

  it('when the data server lists hostile names, then none reaches the code and comments cannot be closed', () => {
    const { text, queries, skipped } = generateQueryModule(
      'social',
      {
        'GET /query/social/x(){}; alert(1); function y': { parameters: {} },
        'GET /query/social/delete': {
          parameters: {
            'a"b': { type: 'INT' },
            ok: { type: 'INT */ alert(1); /*' },
          },
        },
      },
      'a */ listing',
    );
    expect(queries).toEqual([{ name: 'delete', method: 'GET' }]);
    expect(skipped).toHaveLength(2);
    // A reserved word gets a suffix; the type text only ever lands in a comment, defused.
    expect(text).toContain('export function deleteQuery<T = DeleteResult>(');
    expect(text).toContain('/** INT * / alert(1); /* */');
    expect(text).not.toMatch(/\*\/ alert/);
    expect(text).not.toContain('a */ listing');
    expect(text).toContain('ok?: ParamValue | undefined;');
  });

  it('when two queries would take one name, or a name the module uses, then the later one is skipped and said', () => {
    const { text, queries, skipped } = generateQueryModule(
      'social',
      {
        'GET /query/social/Foo': { parameters: {} },
        'GET /query/social/foo': { parameters: {} },
        'GET /query/social/delete': { parameters: {} },
        'GET /query/social/deleteQuery': { parameters: {} },
        'GET /query/social/GRAPH': { parameters: {} },
        'GET /query/social/TgbffClient': { parameters: {} },
      },
      'listing',
    );
    // Sorted by code point: upper case first, so the outcome does not depend on the listing's order.
    expect(queries.map((q) => q.name)).toEqual(['Foo', 'GRAPH', 'TgbffClient', 'delete', 'deleteQuery']);
    expect(skipped).toEqual(['foo: its name FooParams is taken by query Foo']);
    expect(text).toContain('export function deleteQuery<T = DeleteResult>(');
    expect(text).toContain('export function deleteQueryQuery<T = DeleteQueryResult>(');
    expect(text).toContain('export function GRAPHQuery<T = GRAPHResult>(');
    expect(text).toContain('export function TgbffClientQuery<T = TgbffClientResult>(');
    expect(text.match(/^export (function|type|const) (\w+)/gm)?.length).toBe(
      new Set(text.match(/^export (function|type|const) (\w+)/gm)).size,
    );
  });

  it('when a parameter is named __proto__, then it is a field like any other', () => {
    const listing = JSON.parse(
      '{"GET /query/social/q": {"parameters": {"__proto__": {"type": "INT", "min_count": 1}, "b": {"type": "STRING"}}}}',
    ) as EndpointListing;
    const { text } = generateQueryModule('social', listing, 'listing');
    expect(text).toContain('/** INT, required */\n  __proto__: number;');
    expect(text).toContain('/** STRING */\n  b?: string | undefined;');
  });
});

describe('codegen: declared result types', () => {
  const listing: EndpointListing = {
    'GET /query/social/hello': { parameters: { name: { type: 'STRING', min_count: 0, default: 'World' } } },
    'GET /query/social/friends': { parameters: { person: { type: 'VERTEX<Person>', min_count: 1 } } },
  };

  it("when a query's row type is declared once, then its function returns it, and the others unknown", () => {
    const { text, skipped } = generateQueryModule('social', listing, 'listing', {
      results: { hello: '{ greeting: string }', nosuch: 'number' },
      imports: ["import type { Person } from './model.js';"],
    });
    expect(text).toContain('export type HelloResult = { greeting: string };');
    expect(text).toContain('export function hello<T = HelloResult>(');
    expect(text).toContain('export type FriendsResult = unknown;');
    expect(text).toContain("import type { Person } from './model.js';");
    expect(skipped).toEqual(['results.nosuch: the graph lists no such query']);
  });

  it('when a declared type or import would break out of its line, then the generator refuses it', () => {
    expect(() => generateQueryModule('social', listing, 'l', { results: { hello: 'string;\nalert(1)' } })).toThrow(
      /results.hello/,
    );
    expect(() => generateQueryModule('social', listing, 'l', { imports: ["import './side-effect.js';"] })).toThrow(
      /imports/,
    );
  });
});

describe('codegen: detached variants (async)', () => {
  const listing: EndpointListing = {
    'GET /query/social/hello': { parameters: { name: { type: 'STRING', min_count: 0, default: 'World' } } },
    'POST /query/social/friends': { parameters: { person: { type: 'VERTEX<Person>', min_count: 1 } } },
    'GET /query/social/helloAsync': { parameters: {} },
  };

  it('when async is asked for, then each query also gets a <query>Async function answering its request id', () => {
    const { text, skipped } = generateQueryModule('social', listing, 'listing', { async: true });
    expect(text).toContain(
      'export function friendsAsync(\n  client: TgbffClient,\n  params: FriendsParams,\n  options: CallOptions = {},\n): Promise<string> {\n' +
        '  return client.runQueryAsync(GRAPH, "friends", params, { ...options, method: \'POST\' });\n}',
    );
    expect(text).toContain('  return client.runQueryAsync(GRAPH, "hello", params, { ...options, method: \'GET\' });');
    // A query named like another's variant gets the `Query` suffix, as a query named like any taken name.
    expect(skipped).toEqual([]);
    expect(text).toContain('export function helloAsyncQuery<T = HelloAsyncResult>(');
    expect(text.match(/^export (function|type|const) (\w+)/gm)?.length).toBe(
      new Set(text.match(/^export (function|type|const) (\w+)/gm)).size,
    );
  });

  it('when async is not asked for, then no Async function is written', () => {
    expect(generateQueryModule('social', listing, 'listing').text).not.toContain('runQueryAsync');
  });
});
