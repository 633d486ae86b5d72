import { createClient, TigerGraphError, type TgbffClient } from '@tigergraph-bff/browser';
import { DEFAULT_RELAY_ALLOW } from '../../../src/relay/allowlist.js';
import { startRig, type Rig } from '../../helpers/app-rig.js';
import { cookieJarFetch } from '../../helpers/cookie-jar-fetch.js';
import { until } from '../../helpers/wait.js';

// Issue 45 item 2: the browser SDK's detached-query calls against the service with DETACHED_QUERIES on and
// the simulator, through Node 20's fetch (a cookie-jar shim per client, as browser-sdk.test.ts).
let rig: Rig;
let url: string;
const clients: TgbffClient[] = [];

beforeAll(async () => {
  rig = await startRig({
    label: 'browser-sdk-detached',
    env: {
      DETACHED_QUERIES: 'true',
      QUERY_TIMEOUT_MAX_MS: '300000',
      RELAY_ALLOW: `${DEFAULT_RELAY_ALLOW},GET /query_status,GET /query_result,GET /abortquery`,
    },
  });
  url = await rig.listen();
});
afterAll(async () => {
  for (const c of clients) c.close();
  await rig?.close();
});

async function loggedIn(secret = rig.secret): Promise<TgbffClient> {
  const sdk = createClient({ baseUrl: url, fetch: cookieJarFetch().fetch });
  clients.push(sdk);
  await sdk.login({ secret, graph: 'social' });
  return sdk;
}

describe('browser SDK detached queries', () => {
  it('when a query is started detached, then queryStatus follows it to success and queryResult gives its results', async () => {
    const sdk = await loggedIn();
    const id = await sdk.runQueryAsync('social', 'hello', { name: 'Later' });
    expect(id).toMatch(/RESTPP/);
    const done = await until('the detached hello to succeed', async () => {
      const status = await sdk.queryStatus(id, { graph: 'social' });
      return status?.status === 'success' && status;
    });
    expect(done.requestid).toBe(id);
    expect(await sdk.queryResult(id)).toEqual([{ greeting: 'Hello, Later!' }]);
  });

  it('when a running detached query is aborted, then abortQuery names it and its status says aborted', async () => {
    const sdk = await loggedIn();
    const id = await sdk.runQueryAsync('social', 'sleep', { ms: 120_000 }, { headers: { 'GSQL-TIMEOUT': '120000' } });
    expect((await sdk.queryStatus(id))?.status).toBe('running');
    expect(await sdk.abortQuery('social', id)).toEqual([id]);
    expect((await sdk.queryStatus(id))?.status).toBe('aborted');
  });

  it('when another user’s id is asked for, then queryStatus is null and queryResult throws TigerGraphError', async () => {
    const owner = await loggedIn();
    const id = await owner.runQueryAsync('social', 'hello');
    await until('the owner’s query to succeed', async () => (await owner.queryStatus(id))?.status === 'success');
    const other = await loggedIn(rig.sim.createSecret({ alias: `other_${Date.now().toString(36)}` }).value);
    expect(await other.queryStatus(id)).toBeNull();
    const err = await other.queryResult(id).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TigerGraphError);
    expect((err as TigerGraphError).message).toContain('Unable to retrieve result');
    expect(await other.abortQuery('social', 'all')).toEqual([]);
    expect(await owner.queryResult(id)).toEqual([{ greeting: 'Hello, World!' }]);
  });
});
