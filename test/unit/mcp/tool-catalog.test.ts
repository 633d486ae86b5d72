import { describe, expect, test } from '@jest/globals';
import { paramSchema, toolsOf } from '../../../src/mcp/tool-catalog.js';

describe('MCP tools from an endpoint listing', () => {
  test("when parameters are in RESTPP's own spelling, then each maps to a JSON Schema of TigerGraph's type", () => {
    expect(paramSchema({ type: 'INT64', min_count: 1, max_count: 1 })).toEqual({
      schema: { type: 'integer', description: 'INT64' },
      required: true,
    });
    expect(paramSchema({ type: 'STRING', is_id: 'true', id_type: 'Person', min_count: 0 }).schema).toMatchObject({
      type: 'string',
      description: 'the id of a Person vertex',
    });
    expect(paramSchema({ type: 'DOUBLE', max_count: 5 }).schema).toMatchObject({
      type: 'array',
      items: { type: 'number' },
    });
    expect(paramSchema({ type: 'SET<VERTEX<Person>>' }).schema).toMatchObject({
      type: 'array',
      items: { type: 'string' },
    });
    expect(paramSchema({ type: 'VERTEX', is_id: true }).schema).toMatchObject({
      type: 'object',
      required: ['id', 'type'],
    });
    expect(paramSchema({ type: 'BOOL', min_count: 0, default: 'true' })).toMatchObject({
      schema: { type: 'boolean', default: 'true' },
      required: false,
    });
  });

  test('when a listing has odd names, other graphs or built-ins, then only queries of the graph become tools', () => {
    const tools = toolsOf('social', {
      'GET /query/social/hello': {
        parameters: { name: { type: 'STRING', min_count: 1 }, query: { default: 'hello' } },
      },
      'POST /query/social/hello': { parameters: { name: { type: 'STRING', min_count: 1 } } },
      'GET /query/social/../x': { parameters: {} },
      'GET /query/finance/hello': { parameters: {} },
      'GET /graph/social/vertices': null,
      'GET /query/social/__proto__': { parameters: { 'a b': { type: 'INT' } } },
    });
    expect(tools.map((t) => [t.name, t.method])).toEqual([
      ['social____proto__', 'GET'],
      ['social__hello', 'POST'],
    ]);
    const hello = tools.find((t) => t.query === 'hello')!;
    expect(hello.inputSchema).toEqual({
      type: 'object',
      properties: { name: { type: 'string', description: 'STRING' } },
      required: ['name'],
      additionalProperties: false,
    });
    // A parameter name that is no GSQL identifier is left out, never a schema key.
    expect(Object.keys(tools[0]!.inputSchema.properties)).toEqual([]);
  });
});
