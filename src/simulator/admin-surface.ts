import { sendJson } from './http-server.js';
import { parseLenientObject } from './lenient-json.js';
import type { Sim, SimRequest } from './sim-context.js';
import type { SimulatorFaults } from './types.js';

export interface AdminActions {
  createSecret(opts: { user?: string; graph?: string; alias?: string }): { alias: string; value: string };
  revokeToken(token: string): void;
  setFaults(faults: SimulatorFaults): void;
}

/**
 * The simulator's own test surface under /__sim/ on the restpp port, for callers in another process
 * (benchmark, child-process tests). Not counted, not recorded, no latency.
 */
export function handleAdmin(sim: Sim, r: SimRequest, actions: AdminActions): void {
  const route = `${r.method} ${r.path}`;
  const body = parseLenientObject(r.bodyText) ?? {};
  switch (route) {
    case 'GET /__sim/counts':
      return sendJson(r.res, 200, sim.recorder.counts());
    case 'GET /__sim/seen':
      return sendJson(r.res, 200, sim.recorder.seen());
    case 'GET /__sim/tokens':
      return sendJson(
        r.res,
        200,
        sim.state.liveTokens().map(({ token, expiresAt, secretAlias }) => ({ token, expiresAt, secretAlias })),
      );
    case 'GET /__sim/faults':
      return sendJson(r.res, 200, sim.faults);
    case 'POST /__sim/reset':
      sim.recorder.resetCounts();
      sim.recorder.resetSeen();
      return sendJson(r.res, 200, { ok: true });
    case 'POST /__sim/faults':
      actions.setFaults(body as SimulatorFaults);
      return sendJson(r.res, 200, sim.faults);
    case 'POST /__sim/revoke':
      if (typeof body['token'] !== 'string') return sendJson(r.res, 400, { error: 'token (string) is required' });
      actions.revokeToken(body['token']);
      return sendJson(r.res, 200, { ok: true });
    case 'POST /__sim/secrets':
      try {
        const pick = (k: string) => (typeof body[k] === 'string' ? { [k]: body[k] as string } : {});
        return sendJson(r.res, 200, actions.createSecret({ ...pick('user'), ...pick('graph'), ...pick('alias') }));
      } catch (err) {
        return sendJson(r.res, 400, { error: err instanceof Error ? err.message : String(err) });
      }
    default:
      return sendJson(r.res, 404, { error: `unknown simulator admin route ${route}` });
  }
}
