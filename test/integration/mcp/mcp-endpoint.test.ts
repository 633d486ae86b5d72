import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { discoverOAuthProtectedResourceMetadata } from '@modelcontextprotocol/sdk/client/auth.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { auditValidator } from '../../helpers/audit-schema.js';
import { untilMatch } from '../../helpers/wait.js';
import { RESOURCE, startMcpRig, type McpRig } from './mcp-rig.js';

const textOf = (result: unknown): string => ((result as CallToolResult).content[0] as { text: string }).text;

/**
 * The MCP endpoint driven by the SDK's own client (Client + StreamableHTTPClientTransport) against three
 * service processes on one Redis: discovery, the bearer challenge, tools per person, calls through the relay
 * as the person, refusals as tool errors, quota, sign-out, and a session made on one instance used on another.
 */
describe('MCP endpoint with the official client, three instances', () => {
  let rig: McpRig;

  beforeAll(async () => {
    // Per person: 6 relayed requests an hour (a listing per graph counts as one, as it is one relayed request).
    rig = await startMcpRig({ instances: 3, env: { QUOTA_RATE: '6', QUOTA_WINDOW: '3600' } });
  });
  afterAll(async () => {
    // Nothing the agents received ever carried a TigerGraph secret or token.
    const secrets = [...rig.tigergraphSecrets, ...rig.sim.tokens().map((t) => t.token)];
    expect(rig.seen.length).toBeGreaterThan(10);
    expect(rig.sim.tokens().length).toBeGreaterThan(0);
    for (const body of rig.seen) for (const s of secrets) expect(body).not.toContain(s);
    await rig.close();
  });

  test('when a client discovers the protected resource, then the metadata names the IdP and the resource', async () => {
    const metadata = await discoverOAuthProtectedResourceMetadata(new URL(`${rig.services[0]!.url}/mcp`));
    expect(metadata.resource).toBe(RESOURCE);
    expect(metadata.authorization_servers).toEqual([rig.idp.issuer]);
  });

  test('when a request has no bearer, then 401 with a challenge naming the metadata, and the client cannot connect', async () => {
    const res = await fetch(`${rig.services[1]!.url}/mcp`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: {} }),
    });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe(
      'Bearer resource_metadata="http://bff.test/.well-known/oauth-protected-resource/mcp"',
    );
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('not_authenticated');
  });

  test('when two people list tools, then each sees the queries of their own graph only', async () => {
    const alice = await rig.connect(0, await rig.bearer('alice', ['team-social']));
    const bob = await rig.connect(1, await rig.bearer('bob', ['team-finance']));
    const names = async (c: typeof alice) => (await c.client.listTools()).tools.map((t) => t.name).sort();
    expect(await names(alice)).toEqual([
      'social__friends',
      'social__get_vertex',
      'social__hello',
      'social__sleep',
      'social__stream',
    ]);
    expect(await names(bob)).toEqual([
      'finance__friends',
      'finance__get_vertex',
      'finance__hello',
      'finance__sleep',
      'finance__stream',
    ]);
    const friends = (await alice.client.listTools()).tools.find((t) => t.name === 'social__friends')!;
    expect(friends.inputSchema).toMatchObject({
      type: 'object',
      properties: { person: { type: 'string' } },
      required: ['person'],
    });
  });

  test("when a person calls a query tool, then it answers TigerGraph's result, run with their rule's token", async () => {
    const alice = await rig.connect(2, await rig.bearer('alice2', ['team-social']));
    const result = await alice.client.callTool({ name: 'social__hello', arguments: { name: 'Agent' } });
    expect(result.isError).toBeFalsy();
    expect(JSON.parse(textOf(result))).toMatchObject({ results: [{ greeting: 'Hello, Agent!' }] });
    // The built-in vertex lookup (RELAY_ALLOW's default opens GET /graph/).
    const vertex = await alice.client.callTool({
      name: 'social__get_vertex',
      arguments: { type: 'Person', id: 'alice' },
    });
    expect(vertex.isError).toBeFalsy();
    expect(textOf(vertex)).toContain('"v_id":"alice"');
  });

  test('when a person calls a tool of a graph not theirs, or a wrong argument, then a tool error they can read', async () => {
    const alice = await rig.connect(0, await rig.bearer('alice3', ['team-social']));
    const other = await alice.client.callTool({ name: 'finance__hello', arguments: {} });
    expect(other.isError).toBe(true);
    expect(JSON.parse(textOf(other))).toMatchObject({ error: { code: 'not_found' } });
    const wrong = await alice.client.callTool({ name: 'social__friends', arguments: { person: 'nobody' } });
    expect(wrong.isError).toBe(true);
  });

  test('when a person spends their quota, then the next call is a quota_exceeded tool error', async () => {
    const carol = await rig.connect(1, await rig.bearer('carol', ['team-social']));
    let refused: CallToolResult | undefined;
    for (let i = 0; i < 10 && refused === undefined; i++) {
      const r = (await carol.client.callTool({ name: 'social__hello', arguments: {} })) as CallToolResult;
      if (r.isError) refused = r;
    }
    expect(refused).toBeDefined();
    expect(JSON.parse(textOf(refused))).toMatchObject({ error: { code: 'quota_exceeded' } });
  });

  test('when a token is expired, for another audience, or signed by another key, then 401 invalid_token', async () => {
    const now = Math.floor(Date.now() / 1000);
    const tokens = {
      expired: await rig.bearer('dave', ['team-social'], { iat: now - 600, exp: now - 60 }),
      tigergraph: await rig.bearer('dave', ['team-social'], { aud: rig.idp.audience }),
      idToken: await rig.bearer('dave', ['team-social'], { aud: rig.idp.clientId }),
      foreign: await rig.idp.accessToken({ sub: 'dave', aud: RESOURCE }, { key: 'foreign' }),
    };
    for (const [what, token] of Object.entries(tokens)) {
      const res = await rig.recordingFetch(`${rig.services[0]!.url}/mcp`, {
        method: 'POST',
        headers: {
          Authorization: `Bearer ${token}`,
          'Content-Type': 'application/json',
          Accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
      expect([what, res.status]).toEqual([what, 401]);
      expect(res.headers.get('www-authenticate')).toContain('error="invalid_token"');
    }
    await expect(rig.connect(0, tokens.expired)).rejects.toThrow();
  });

  test("when a session is made on one instance, then it is used on the others; its id is nobody else's", async () => {
    const bearer = await rig.bearer('erin', ['team-finance']);
    const first = await rig.connect(0, bearer);
    const sessionId = first.transport.sessionId!;
    expect(sessionId).toMatch(/^[0-9a-f-]{36}$/);
    for (const at of [1, 2]) {
      const again = await rig.connect(at, bearer, sessionId);
      expect((await again.client.listTools()).tools.length).toBe(5);
    }
    // Another person presenting erin's session id: unknown to them.
    const mallory = await rig.connect(1, await rig.bearer('mallory', ['team-finance']), sessionId);
    await expect(mallory.client.listTools()).rejects.toThrow(/404|session/i);
  });

  test('when the IdP sends a back-channel logout, then the MCP sessions end on every instance and the old token opens nothing', async () => {
    const bearer = await rig.bearer('frank', ['team-social']);
    const agent = await rig.connect(0, bearer);
    expect((await agent.client.listTools()).tools.length).toBe(5);
    const logout = await rig.idp.logoutToken({ sub: 'frank' });
    const res = await fetch(`${rig.services[1]!.url}/auth/oidc/backchannel-logout`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ logout_token: logout }).toString(),
    });
    expect(res.status).toBe(200);
    await expect(agent.client.listTools()).rejects.toThrow(/401|signed out|Unauthorized/i);
    await expect(rig.connect(2, bearer)).rejects.toThrow();
    // A token issued after the sign-out (a new sign-in) works again.
    const fresh = await rig.bearer('frank', ['team-social'], { iat: Math.floor(Date.now() / 1000) + 1 });
    expect((await (await rig.connect(2, fresh)).client.listTools()).tools.length).toBe(5);
  });

  test('when agents call tools, then each call is an audit event naming the tool and the person, in the schema', async () => {
    const output = () => rig.services.map((s) => s.output()).join('\n');
    await untilMatch(
      'the quota refusal in the audit trail',
      output,
      /"event":"mcp\.tool_called"[^\n]*"quota_exceeded"/,
    );
    const lines = output()
      .split('\n')
      .filter((l) => l.includes('"stream":"audit"'))
      .join('\n');
    const schema = auditValidator();
    expect(schema.problems(lines)).toEqual([]);
    const calls = schema.events(lines).filter((e) => e.event === 'mcp.tool_called');
    expect(calls).toContainEqual(expect.objectContaining({ tool: 'social__hello', result: 'ok', rule: 'social' }));
    expect(calls).toContainEqual(
      expect.objectContaining({ tool: 'finance__hello', result: 'refused', code: 'not_found' }),
    );
    // The person by a keyed hash, never the subject.
    for (const c of calls) expect(['alice2', 'alice3', 'carol']).not.toContain(c.principal);
  });
});
