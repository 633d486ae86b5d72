import { timingSafeEqual } from 'node:crypto';
import { isIP } from 'node:net';
import { sendJson } from './http-server.js';
import { parseLenientObject } from './lenient-json.js';
import type { AdminAccess, Sim, SimRequest } from './sim-context.js';
import type { SimulatorFaults } from './types.js';

export interface AdminActions {
  createSecret(opts: { user?: string; graph?: string; alias?: string }): { alias: string; value: string };
  revokeToken(token: string): void;
  setFaults(faults: SimulatorFaults): void;
}

/** 127.0.0.0/8, ::1, IPv4-mapped loopback and the name localhost; 0.0.0.0 and :: (every interface) are not. */
export function isLoopbackBind(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (bare === 'localhost') return true;
  if (isIP(bare) === 4) return bare.startsWith('127.');
  if (bare === '::1') return true;
  return bare.startsWith('::ffff:') && isIP(bare.slice(7)) === 4 && bare.slice(7).startsWith('127.');
}

export function adminAccess(host: string, key: string | undefined): AdminAccess {
  if (key !== undefined && key !== '') return { mode: 'key', key: Buffer.from(key) };
  return isLoopbackBind(host) ? { mode: 'open' } : { mode: 'off', host };
}

/** True when the request may use the surface; otherwise it has been answered (404 off, 401 wrong key). */
export function admitAdmin(access: AdminAccess, r: SimRequest): boolean {
  if (access.mode === 'open') return true;
  if (access.mode === 'off') {
    sendJson(r.res, 404, {
      error: `the simulator's control surface is off: it listens on ${access.host}, beyond loopback, and was started without --admin-key`,
    });
    return false;
  }
  const raw = r.req.headers['x-sim-key'];
  const given = Buffer.from(typeof raw === 'string' ? raw : '');
  if (given.length === access.key.length && timingSafeEqual(given, access.key)) return true;
  sendJson(r.res, 401, { error: 'the simulator control surface needs the X-Sim-Key header with its --admin-key' });
  return false;
}

/**
 * The simulator's own test surface under /__sim/ on the restpp port, for callers in another process
 * (benchmark, child-process tests). Not counted, not recorded, no latency. Guarded by admitAdmin.
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
