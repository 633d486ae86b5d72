import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startRig, type Rig } from '../../helpers/app-rig.js';
import { jsonError, makeHome, runCli } from './cli-harness.js';

/**
 * `tgbff codegen` for a graph that does not exist exits 7, as its help promises (issue 43), through the service
 * (the login's `graph_not_found`) and straight from the data server (RESTPP's `Graph 'x' does not exist.`).
 */
const GRAPH_NOT_FOUND = 7;
let rig: Rig;
let base: string;
let home: Awaited<ReturnType<typeof makeHome>>;

beforeAll(async () => {
  rig = await startRig({ store: 'memory' });
  base = await rig.listen();
  home = await makeHome();
});
afterAll(async () => {
  await Promise.all([rig.close(), home.remove()]);
});

describe('codegen for a graph that does not exist', () => {
  it('when it goes through the service, then exit 7 graph_not_found (and 0 for the real graph)', async () => {
    const codegen = (graph: string) =>
      runCli(['codegen', '--graph', graph, '--service', base, '--json'], { home: home.dir, input: `${rig.secret}\n` });
    const ok = await codegen('social');
    expect(ok.code).toBe(0);
    const r = await codegen('nosuch');
    expect(r.code).toBe(GRAPH_NOT_FOUND);
    expect(jsonError(r).code).toBe('graph_not_found');
    expect(r.stdout + r.stderr).not.toContain(rig.secret);
  });

  it('when it reads the data server with a token, then exit 7 graph_not_found naming the graph', async () => {
    const token = await mintToken();
    const r = await runCli(['codegen', '--graph', 'nosuch', '--json'], {
      home: home.dir,
      env: { TG_RESTPP_URL: rig.sim.restppUrl, TG_TOKEN: token },
    });
    expect(r.code).toBe(GRAPH_NOT_FOUND);
    expect(jsonError(r)).toMatchObject({ code: 'graph_not_found', message: expect.stringContaining("'nosuch'") });
  });
});

/** A token for the rig's secret, minted by a login through the service. */
async function mintToken(): Promise<string> {
  await rig.login();
  const [first] = rig.sim.tokens();
  if (!first) throw new Error('the login minted no token');
  return first.token;
}
