import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { Redis } from 'ioredis';
import { rawExchange } from '../../helpers/raw-request.js';
import { RESOURCE, startMcpRig, type McpRig } from '../mcp/mcp-rig.js';

/**
 * One hostile agent against /mcp (one service process): many sessions, huge and batched bodies, slow bodies,
 * unknown methods, odd and foreign Mcp-Session-Id values. Each costs that agent its own requests only.
 */
const CAP = 3;
const MAX_BODY = 4096;

describe('MCP endpoint against a hostile agent', () => {
  let rig: McpRig;
  let redis: Redis;
  let url: string;

  beforeAll(async () => {
    rig = await startMcpRig({
      instances: 1,
      env: {
        MCP_SESSIONS_PER_PRINCIPAL: String(CAP),
        MCP_MAX_BODY_BYTES: String(MAX_BODY),
        REQUEST_TIMEOUT_MS: '3000',
        HEADERS_TIMEOUT_MS: '2000',
        // No built-in endpoints: the vertex lookup must not be a tool.
        RELAY_ALLOW: 'GET /endpoints,GET /query/,POST /query/',
      },
    });
    url = `${rig.services[0]!.url}/mcp`;
    redis = new Redis('redis://127.0.0.1:6379');
  });
  afterAll(async () => {
    redis?.disconnect();
    await rig?.close();
  });

  const post = (bearer: string, body: string, headers: Record<string, string> = {}) =>
    rig.recordingFetch(url, {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${bearer}`,
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
        'Mcp-Protocol-Version': '2025-06-18',
        ...headers,
      },
      body,
    });
  const initialize = (bearer: string) =>
    post(
      bearer,
      JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'hostile', version: '1' } },
      }),
    );
  const list = (bearer: string, sessionId: string) =>
    post(bearer, JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }), { 'Mcp-Session-Id': sessionId });
  const codeOf = async (res: Response) => ((await res.json()) as { error?: { code?: unknown } }).error?.code;

  test('when one person opens many sessions, then only the newest MCP_SESSIONS_PER_PRINCIPAL live, in Redis too', async () => {
    const bearer = await rig.bearer('hoarder', ['team-social']);
    const ids: string[] = [];
    for (let i = 0; i < CAP + 5; i++) {
      const res = await initialize(bearer);
      expect(res.status).toBe(200);
      ids.push(res.headers.get('mcp-session-id')!);
    }
    const statuses = await Promise.all(ids.map(async (id) => (await list(bearer, id)).status));
    expect(statuses).toEqual([...Array<number>(5).fill(404), ...Array<number>(CAP).fill(200)]);
    const keys = await redis.keys(`${rig.prefix}mcp:*`);
    expect(keys.length).toBeGreaterThan(0);
    for (const key of keys.filter((k) => !k.endsWith(':out'))) {
      expect(await redis.zcard(key)).toBeLessThanOrEqual(CAP);
      expect(await redis.pttl(key)).toBeGreaterThan(0);
    }
  });

  test('when RELAY_ALLOW does not open the built-in vertex endpoint, then no tool offers it', async () => {
    const bearer = await rig.bearer('lister', ['team-social']);
    const session = (await initialize(bearer)).headers.get('mcp-session-id')!;
    const tools = ((await (await list(bearer, session)).json()) as { result: { tools: Array<{ name: string }> } })
      .result.tools;
    expect(tools.map((t) => t.name)).toContain('social__hello');
    expect(tools.map((t) => t.name)).not.toContain('social__get_vertex');
  });

  test('when a body is larger than MCP_MAX_BODY_BYTES, then 413 before it is parsed', async () => {
    const bearer = await rig.bearer('big', ['team-social']);
    const res = await post(
      bearer,
      JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping', params: { x: 'x'.repeat(MAX_BODY) } }),
    );
    expect(res.status).toBe(413);
    expect(await codeOf(res)).toBe('payload_too_large');
  });

  test('when a body is a batch, not JSON, or not JSON-RPC, then 400 naming it', async () => {
    const bearer = await rig.bearer('batcher', ['team-social']);
    const session = (await initialize(bearer)).headers.get('mcp-session-id')!;
    const batch = await post(bearer, JSON.stringify([{ jsonrpc: '2.0', id: 1, method: 'tools/list' }]), {
      'Mcp-Session-Id': session,
    });
    expect(batch.status).toBe(400);
    expect(await codeOf(batch)).toBe('invalid_request');
    const notJson = await post(bearer, '{"jsonrpc":', { 'Mcp-Session-Id': session });
    expect(notJson.status).toBe(400);
    const notRpc = await post(bearer, JSON.stringify({ hello: 'world' }), { 'Mcp-Session-Id': session });
    expect(notRpc.status).toBe(400);
    const wrongType = await post(bearer, '{}', { 'Mcp-Session-Id': session, 'Content-Type': 'text/plain' });
    expect(wrongType.status).toBe(415);
  });

  test('when a method is unknown, then a JSON-RPC method-not-found error, the session unharmed', async () => {
    const bearer = await rig.bearer('prober', ['team-social']);
    const session = (await initialize(bearer)).headers.get('mcp-session-id')!;
    const res = await post(bearer, JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'resources/list' }), {
      'Mcp-Session-Id': session,
    });
    expect(((await res.json()) as { error: { code: number } }).error.code).toBe(-32601);
    expect((await list(bearer, session)).status).toBe(200);
  });

  test("when Mcp-Session-Id is odd, missing, made up, or another person's, then it is refused as unknown", async () => {
    const owner = await rig.bearer('owner', ['team-social']);
    const theirs = (await initialize(owner)).headers.get('mcp-session-id')!;
    const thief = await rig.bearer('thief', ['team-social']);
    expect((await initialize(thief)).status).toBe(200);
    for (const odd of [
      theirs,
      theirs.toUpperCase(),
      '00000000-0000-0000-0000-000000000000',
      '../../x',
      '*',
      'x'.repeat(4000),
    ]) {
      const res = await list(thief, odd);
      expect([odd.slice(0, 40), res.status, await codeOf(res)]).toEqual([odd.slice(0, 40), 404, 'session_not_found']);
    }
    const none = await post(thief, JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }));
    expect(none.status).toBe(400);
    // Ending another person's session by its id is refused too, and it lives on.
    const del = await rig.recordingFetch(url, {
      method: 'DELETE',
      headers: { Authorization: `Bearer ${thief}`, 'Mcp-Session-Id': theirs },
    });
    expect(del.status).toBe(404);
    expect((await list(owner, theirs)).status).toBe(200);
  });

  test('when a body is sent slowly, then its request times out alone and others are answered meanwhile', async () => {
    const bearer = await rig.bearer('slowpoke', ['team-social']);
    const slow = await rawExchange(
      rig.services[0]!.port,
      `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${bearer}\r\nContent-Type: application/json\r\n` +
        `Accept: application/json, text/event-stream\r\nContent-Length: 1000\r\n\r\n{"jsonrpc":`,
    );
    const other = await rig.bearer('bystander', ['team-social']);
    const session = (await initialize(other)).headers.get('mcp-session-id')!;
    expect((await list(other, session)).status).toBe(200);
    expect(slow.status()).toBeNull();
    // REQUEST_TIMEOUT_MS ends the slow one (Node's server answers 408 or closes).
    await slow.closed;
    expect(slow.received()).not.toContain('"tools"');
  });

  test('when the bearer names another resource in a list of audiences, then it is still accepted only with this one', async () => {
    const both = await rig.bearer('multi', ['team-social'], { aud: [RESOURCE, 'urn:other'] });
    expect((await initialize(both)).status).toBe(200);
    const other = await rig.bearer('multi', ['team-social'], { aud: ['urn:other'] });
    expect((await initialize(other)).status).toBe(401);
  });
});
