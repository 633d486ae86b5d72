import { createDemoGraph, type DemoGraph } from './demo-graph.js';
import { DetachedQueries } from './detached-registry.js';
import { adminAccess } from './admin-surface.js';
import { loadExternalJwtVerifier, readKeyValue } from './external-jwt.js';
import { closeServer, createRawServer, listen } from './http-server.js';
import { createJwtSigner } from './jwt.js';
import { Recorder } from './recorder.js';
import { createDispatcher } from './router.js';
import type { Sim } from './sim-context.js';
import { SimState, SUPERUSER } from './state.js';
import type { SimulatorFaults, SimulatorHandle, SimulatorOptions } from './types.js';
import { parseVersion } from './version.js';

export const DEMO_GRAPH = 'social';

/** Starts a TigerGraph stand-in: a RESTPP port and a GSQL port, like a fresh install plus `options`. */
export async function startSimulator(options: SimulatorOptions = {}): Promise<SimulatorHandle> {
  const version = parseVersion(options.version ?? '3.9.3');
  const now = options.now ?? Date.now;
  const host = options.host ?? '127.0.0.1';
  if (options.jwt !== undefined && !version.atLeast310) {
    throw new Error(
      `External JWT verification (jwt) needs TigerGraph 3.10 or later; the simulator mimics ${version.text}`,
    );
  }
  if (
    options.authFailureStatus !== undefined &&
    options.authFailureStatus !== 401 &&
    options.authFailureStatus !== 403
  ) {
    throw new Error(`authFailureStatus must be 401 or 403, got ${String(options.authFailureStatus)}`);
  }
  const externalJwt = options.jwt === undefined ? undefined : await loadExternalJwtVerifier(options.jwt);
  // A key file usually ends in a newline that is not part of the key.
  const adminKey =
    options.adminKey === undefined
      ? undefined
      : (await readKeyValue(options.adminKey, 'adminKey')).replace(/\r?\n$/, '');
  const jwt = createJwtSigner();
  const state = new SimState(now, jwt);
  const graphs = new Map<string, DemoGraph>([[DEMO_GRAPH, createDemoGraph(true)]]);
  for (const g of options.graphs ?? []) if (!graphs.has(g)) graphs.set(g, createDemoGraph(false));
  for (const g of graphs.keys()) state.graphs.add(g);
  state.addUser(SUPERUSER, 'tigergraph', [], true);
  for (const u of options.users ?? []) {
    for (const g of u.graphs ?? [])
      if (!graphs.has(g)) throw new Error(`Simulator user "${u.name}" names unknown graph "${g}"`);
    // Naming `tigergraph` changes its password, as on a real server; it stays the superuser.
    state.addUser(u.name, u.password, u.graphs ?? [], u.name === SUPERUSER || (u.superuser ?? false));
  }

  const sim: Sim = {
    version,
    state,
    jwt,
    externalJwt,
    blockedJwts: new Set(),
    jwtIssuer: options.jwt?.issuer,
    jwtAudience: options.jwt?.audience,
    recorder: new Recorder(),
    graphs,
    authEnabled: options.authEnabled ?? true,
    authFailureStatus: options.authFailureStatus ?? 401,
    omitTokenExpiration: options.omitTokenExpiration ?? false,
    latencyMs: options.latencyMs ?? 0,
    faults: {},
    held: new Set(),
    envelopeVersion: version.v4 ? { edition: 'enterprise', api: 'v2', schema: 0 } : { api: 'v2', schema: 0 },
    log: options.log,
    adminAccess: adminAccess(host, adminKey),
    detached: new DetachedQueries(now),
  };

  const createSecret = (opts: { user?: string; graph?: string; alias?: string; value?: string } = {}) => {
    const user = opts.user ?? SUPERUSER;
    if (!state.users.has(user)) throw new Error(`unknown user "${user}"`);
    // 3.x secrets belong to a graph (the demo graph unless named); 4.1+ secrets need none.
    const graph = opts.graph ?? (version.era === 'jwt' ? undefined : DEMO_GRAPH);
    if (graph !== undefined && !graphs.has(graph)) throw new Error(`unknown graph "${graph}"`);
    const secret = state.createSecret({ user, graph, alias: opts.alias, value: opts.value });
    return { alias: secret.alias, value: secret.value };
  };
  for (const s of options.secrets ?? []) createSecret(s);

  const actions = {
    createSecret,
    revokeToken: (token: string) => {
      if (!state.revokeToken(token) && token.includes('.')) sim.blockedJwts.add(token);
    },
    setFaults: (faults: SimulatorFaults) => {
      sim.faults = { ...faults };
      if (faults.holdData !== true) for (const release of [...sim.held]) release();
    },
  };
  const restppServer = createRawServer(createDispatcher(sim, 'restpp', now, actions), options.log);
  const gsqlServer = createRawServer(createDispatcher(sim, 'gsql', now, actions), options.log);
  const restppPort = await listen(restppServer, host, options.restppPort ?? 0);
  let gsqlPort: number;
  try {
    gsqlPort = await listen(gsqlServer, host, options.gsqlPort ?? 0);
  } catch (err) {
    await closeServer(restppServer);
    throw err;
  }

  const urlHost = host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '[::1]' : host.includes(':') ? `[${host}]` : host;
  const gsqlUrl = `http://${urlHost}:${gsqlPort}`;
  return {
    version: version.text,
    adminSurface: sim.adminAccess.mode,
    restppPort,
    gsqlPort,
    restppUrl: version.era === 'jwt' ? `${gsqlUrl}/restpp` : `http://${urlHost}:${restppPort}`,
    gsqlUrl,
    counts: () => sim.recorder.counts(),
    resetCounts: () => sim.recorder.resetCounts(),
    seen: () => sim.recorder.seen(),
    setFaults: actions.setFaults,
    revokeToken: actions.revokeToken,
    createSecret: (opts) => createSecret(opts),
    tokens: () => state.liveTokens().map(({ token, expiresAt, secretAlias }) => ({ token, expiresAt, secretAlias })),
    close: async () => {
      sim.detached.close();
      await Promise.all([closeServer(restppServer), closeServer(gsqlServer)]);
    },
  };
}
