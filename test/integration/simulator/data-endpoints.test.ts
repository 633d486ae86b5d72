import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { request } from 'undici';
import { DEMO_QUERIES } from '../../../src/simulator/demo-queries.js';
import { startSimulator, type SimulatorHandle } from '../../../src/simulator/index.js';
import { bearer, call } from './sim-http.js';

describe('simulator data endpoints (3.9.3)', () => {
  let sim: SimulatorHandle;
  let auth: Record<string, string>;
  let base: string;

  beforeAll(async () => {
    sim = await startSimulator({ version: '3.9.3' });
    const res = await call(`${sim.restppUrl}/requesttoken`, {
      method: 'POST',
      body: JSON.stringify({ secret: sim.createSecret().value }),
    });
    auth = { authorization: bearer(res.json.token) };
    base = sim.restppUrl;
  });
  afterAll(() => sim.close());

  it('when /echo is called on the restpp port and under /restpp on the gsql port, then both answer Hello GSQL', async () => {
    const direct = await call(`${base}/echo`, { headers: auth });
    const prefixed = await call(`${sim.gsqlUrl}/restpp/echo`, { headers: auth });
    expect(direct.json).toEqual({ error: false, message: 'Hello GSQL' });
    expect(prefixed.json).toEqual({ error: false, message: 'Hello GSQL' });
    expect(sim.seen().at(-1)).toMatchObject({ port: 'gsql', path: '/echo', status: 200 });
  });

  it('when /echo gets sleep=0.3, then the answer takes at least 250 ms', async () => {
    const started = Date.now();
    const res = await call(`${base}/echo?sleep=0.3`, { method: 'POST', headers: auth });
    expect(res.status).toBe(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
  });

  it('when /version is read, then the product line carries release_<version>_ as pyTigerGraph parses it', async () => {
    const res = await call(`${base}/version`, { headers: auth });
    expect(res.json.error).toBe('false');
    const lines: string[] = res.json.message.split('\n');
    expect(lines.slice(3).find((l) => l.startsWith('product'))).toMatch(/_3\.9\.3_/);
  });

  it('when /endpoints is read with builtin=true, then the built-in endpoints are listed with {graph_name} and no query', async () => {
    const res = await call(`${base}/endpoints?builtin=true`, { headers: auth });
    expect(Object.keys(res.json)).toEqual(
      expect.arrayContaining(['GET /echo', 'POST /builtins/{graph_name}', 'POST /requesttoken']),
    );
    expect(Object.keys(res.json).filter((k) => k.includes('/query/'))).toEqual([]);
  });

  it('when /endpoints/social is read with dynamic=true, then every demo query is listed for social, with its parameters', async () => {
    const res = await call(`${base}/endpoints/social?dynamic=true`, { headers: auth });
    const expected = DEMO_QUERIES.flatMap((q) => [`GET /query/social/${q}`, `POST /query/social/${q}`]);
    expect(Object.keys(res.json).sort()).toEqual(expected.sort());
    // Required-ness as RESTPP says it: min_count 1 without a default, else min_count 0 and the default.
    expect(res.json['GET /query/social/hello']).toEqual({
      parameters: { name: { type: 'STRING', min_count: 0, max_count: 1, default: 'World' } },
    });
    expect(res.json['GET /query/social/friends']).toEqual({
      parameters: { person: { type: 'VERTEX<Person>', min_count: 1, max_count: 1 } },
    });
    const none = await call(`${base}/endpoints/nograph?dynamic=true`, { headers: auth });
    expect(none.json).toMatchObject({ error: true, code: 'REST-1004' });
  });

  it('when /endpoints is read without flags, then built-in endpoints and the queries of every graph are listed', async () => {
    const res = await call(`${base}/endpoints`, { headers: auth });
    expect(Object.keys(res.json)).toEqual(
      expect.arrayContaining(['GET /version', 'GET /query/social/friends', 'POST /query/social/hello']),
    );
  });

  it('when vertices are listed, then demo people come back with limit and count_only honoured', async () => {
    const all = await call(`${base}/graph/social/vertices/Person`, { headers: auth });
    expect(all.json).toMatchObject({ version: { api: 'v2', schema: 0 }, error: false, message: '' });
    expect(all.json.results.length).toBe(8);
    const two = await call(`${base}/graph/social/vertices/Person?limit=2`, { headers: auth });
    expect(two.json.results.length).toBe(2);
    const count = await call(`${base}/graph/social/vertices/Person?count_only=true`, { headers: auth });
    expect(count.json.results).toEqual([{ v_type: 'Person', count: 8 }]);
  });

  it('when a missing vertex, type or graph is asked for, then an error envelope comes back', async () => {
    const vertex = await call(`${base}/graph/social/vertices/Person/nobody`, { headers: auth });
    expect(vertex.json).toMatchObject({ error: true, code: '601' });
    const type = await call(`${base}/graph/social/vertices/Robot`, { headers: auth });
    expect(type.json.error).toBe(true);
    const graph = await call(`${base}/graph/nograph/vertices/Person`, { headers: auth });
    expect(graph.json).toMatchObject({ error: true, code: 'REST-1004' });
  });

  it('when a vertex and an edge are upserted, then they can be read back and the POST body was seen', async () => {
    const body = JSON.stringify({
      vertices: { Person: { zed: { name: { value: 'Zed' }, age: { value: 40 } } } },
      edges: { Person: { zed: { Friend: { Person: { alice: { since: { value: 2024 } } } } } } },
    });
    const res = await call(`${base}/graph/social`, { method: 'POST', body, headers: auth });
    expect(res.json.results).toEqual([{ accepted_vertices: 1, accepted_edges: 1 }]);
    expect(sim.seen().at(-1)?.bodyText).toBe(body);
    const zed = await call(`${base}/graph/social/vertices/Person/zed`, { headers: auth });
    expect(zed.json.results[0]).toEqual({
      v_id: 'zed',
      v_type: 'Person',
      attributes: { name: 'Zed', age: 40, city: '' },
    });
    const friends = await call(`${base}/query/social/friends?person=zed`, { headers: auth });
    expect(friends.json.results[0].friends.map((f: { v_id: string }) => f.v_id)).toEqual(['alice']);
  });

  it('when demo queries run by GET and POST, then results are printed objects', async () => {
    const get = await call(`${base}/query/social/hello?name=Ann`, { headers: auth });
    expect(get.json.results).toEqual([{ greeting: 'Hello, Ann!' }]);
    const post = await call(`${base}/query/social/hello`, { method: 'POST', body: '{"name":"Bo"}', headers: auth });
    expect(post.json.results).toEqual([{ greeting: 'Hello, Bo!' }]);
    const friends = await call(`${base}/query/social/friends`, {
      method: 'POST',
      body: '{"person":"alice"}',
      headers: auth,
    });
    expect(friends.json.results[0].friends.map((f: { v_id: string }) => f.v_id).sort()).toEqual(
      expect.arrayContaining(['bob', 'carol', 'grace']),
    );
  });

  it('when an unknown query or path is called, then 404 REST-1000 names the url', async () => {
    const res = await call(`${base}/query/social/nope`, { headers: auth });
    expect(res.status).toBe(404);
    expect(res.json).toEqual({
      error: true,
      code: 'REST-1000',
      message:
        'Endpoint is not found from url = /query/social/nope, please use GET /endpoints to list all valid endpoints.',
    });
  });

  it('when builtins count vertices and edges, then the demo numbers come back', async () => {
    const v = await call(`${base}/builtins/social`, {
      method: 'POST',
      body: '{"function":"stat_vertex_number","type":"*"}',
      headers: auth,
    });
    expect(v.json.results[0]).toMatchObject({ v_type: 'Person' });
    const e = await call(`${base}/builtins/social`, {
      method: 'POST',
      body: '{"function":"stat_edge_number","type":"*"}',
      headers: auth,
    });
    expect(e.json.results[0]).toMatchObject({ e_type: 'Friend' });
    expect(e.json.results[0].count).toBeGreaterThanOrEqual(8);
    const bad = await call(`${base}/builtins/social`, { method: 'POST', body: '{"function":"nope"}', headers: auth });
    expect(bad.json.error).toBe(true);
  });

  it('when the stream query runs, then the answer arrives in several chunks and parses as one JSON document', async () => {
    const res = await request(`${base}/query/social/stream?chunks=5&delayMs=30&chunkBytes=1000`, { headers: auth });
    let pieces = 0;
    let text = '';
    for await (const chunk of res.body) {
      pieces++;
      text += chunk.toString();
    }
    expect(res.statusCode).toBe(200);
    expect(pieces).toBeGreaterThanOrEqual(2);
    const parsed = JSON.parse(text);
    expect(parsed.results.length).toBe(5);
    expect(parsed.results[4].data.length).toBe(1000);
  });

  it('when a client abandons the stream, then the simulator keeps serving', async () => {
    const res = await request(`${base}/query/social/stream?chunks=1000&delayMs=5`, { headers: auth });
    for await (const _chunk of res.body) break; // leaving the loop destroys the body
    const after = await call(`${base}/echo`, { headers: auth });
    expect(after.status).toBe(200);
  });
});
