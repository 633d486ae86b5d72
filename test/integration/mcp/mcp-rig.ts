import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startSimulator } from '../../../src/simulator/index.js';
import type { SimulatorHandle } from '../../../src/simulator/types.js';
import { startTestIdp, type TestIdp } from '../../helpers/oidc-provider.js';
import { startServiceProcess, type ServiceProcess } from '../../helpers/service-process.js';
import { dropPrefix, newPrefix, REDIRECT_URI } from '../oidc/sso-rig.js';

/**
 * The MCP endpoint's rig: the test IdP, the simulator with two graphs (social, finance), a credential map with
 * a rule per graph (people in `team-social` reach social, `team-finance` finance), and `instances` service
 * processes (dist/main.js) on one Redis prefix. Every answer an agent's client receives is recorded (`seen`),
 * so a test can check that no TigerGraph token ever reached it.
 */
export const RESOURCE = 'http://bff.test/mcp';

export interface McpRig {
  idp: TestIdp;
  sim: SimulatorHandle;
  services: ServiceProcess[];
  prefix: string;
  /** Secrets and tokens the service holds for TigerGraph: none may appear in anything the agent gets. */
  tigergraphSecrets: string[];
  /** Every body the agents' clients received. */
  seen: string[];
  /** A bearer for `sub` in `groups`, for the MCP resource unless claims say otherwise. */
  bearer(sub: string, groups: string[], claims?: Record<string, unknown>): Promise<string>;
  /** A connected SDK client at instance `at` with `bearer`, recording what it receives. */
  connect(
    at: number,
    bearer: string,
    sessionId?: string,
  ): Promise<{ client: Client; transport: StreamableHTTPClientTransport }>;
  /** fetch that records the body it received (for the agent's raw requests). */
  recordingFetch: typeof fetch;
  close(): Promise<void>;
}

export async function startMcpRig(options: { instances: number; env?: Record<string, string> }): Promise<McpRig> {
  const idp = await startTestIdp({ redirectUris: [REDIRECT_URI] });
  const sim = await startSimulator({ version: '3.9.3', graphs: ['finance'] });
  const dir = mkdtempSync(path.join(tmpdir(), 'tgbff-mcp-'));
  const social = sim.createSecret({ alias: 'mcp_social', graph: 'social' }).value;
  const finance = sim.createSecret({ alias: 'mcp_finance', graph: 'finance' }).value;
  writeFileSync(path.join(dir, 'social'), social);
  writeFileSync(path.join(dir, 'finance'), finance);
  const mapFile = path.join(dir, 'map.yaml');
  writeFileSync(
    mapFile,
    [
      'rules:',
      `  - { name: social, match: [team-social], graphs: [social], credential: { secretFile: ${path.join(dir, 'social')} } }`,
      `  - { name: finance, match: [team-finance], graphs: [finance], credential: { secretFile: ${path.join(dir, 'finance')} } }`,
      '',
    ].join('\n'),
  );
  const prefix = newPrefix();
  const env = {
    NODE_ENV: 'test',
    TG_RESTPP_URL: sim.restppUrl,
    TG_GSQL_URL: sim.gsqlUrl,
    TG_VERSION: sim.version,
    REDIS_URL: 'redis://127.0.0.1:6379',
    REDIS_PREFIX: prefix,
    REDIS_COMMAND_TIMEOUT_MS: '4000',
    SESSION_SECRET: 'a-session-secret-shared-by-the-processes-0123456789',
    SESSION_ENCRYPTION_KEYS: 'k1:MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=',
    COOKIE_SECURE: 'false',
    OPENAPI_ROUTE: 'false',
    OIDC_ISSUER: idp.issuer,
    OIDC_CLIENT_ID: idp.clientId,
    OIDC_CLIENT_SECRET: idp.clientSecret,
    OIDC_REDIRECT_URI: REDIRECT_URI,
    OIDC_CREDENTIAL_MAP: mapFile,
    MCP_RESOURCE: RESOURCE,
    ...options.env,
  };
  const starts = await Promise.allSettled(Array.from({ length: options.instances }, () => startServiceProcess(env)));
  const failed = starts.find((s) => s.status === 'rejected');
  if (failed) {
    // Nothing of a failed rig may outlive it (jest would not exit).
    await Promise.all(starts.flatMap((s) => (s.status === 'fulfilled' ? [s.value.stop()] : [])));
    await Promise.all([sim.close(), idp.close()]);
    rmSync(dir, { recursive: true, force: true });
    throw failed.reason;
  }
  const services = starts.map((s) => (s as PromiseFulfilledResult<ServiceProcess>).value);
  const seen: string[] = [];
  const recordingFetch: typeof fetch = async (input, init) => {
    const res = await fetch(input, init);
    const text = await res.clone().text();
    seen.push(`${res.status} ${JSON.stringify([...res.headers])} ${text}`);
    return res;
  };
  const transports: StreamableHTTPClientTransport[] = [];
  return {
    idp,
    sim,
    services,
    prefix,
    tigergraphSecrets: [social, finance],
    seen,
    recordingFetch,
    bearer: (sub, groups, claims = {}) => idp.accessToken({ sub, aud: RESOURCE, groups, ...claims }),
    async connect(at, bearer, sessionId) {
      const transport = new StreamableHTTPClientTransport(new URL(`${services[at]!.url}/mcp`), {
        requestInit: { headers: { Authorization: `Bearer ${bearer}` } },
        fetch: recordingFetch,
        ...(sessionId !== undefined && { sessionId }),
      });
      transports.push(transport);
      const client = new Client({ name: 'tgbff-test-agent', version: '1.0.0' });
      await client.connect(transport);
      return { client, transport };
    },
    async close() {
      await Promise.allSettled(transports.map((t) => t.close()));
      await Promise.all(services.map((s) => s.stop()));
      await sim.close();
      await idp.close();
      rmSync(dir, { recursive: true, force: true });
      await dropPrefix(prefix);
    },
  };
}
