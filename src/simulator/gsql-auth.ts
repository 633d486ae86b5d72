import type { Sim, SimRequest } from './sim-context.js';
import { parseBasic, type Principal } from './token-ops.js';

/**
 * Who is calling the admin server: Basic user:password, Basic `__GSQL__secret:<secret>`, or on 4.1+
 * a Bearer JWT the GSQL server issued. Undefined means 401.
 */
export function gsqlPrincipal(sim: Sim, r: SimRequest): Principal | undefined {
  const header = r.req.headers.authorization;
  const basic = parseBasic(header);
  if (basic) return sim.state.login(basic.name, basic.password);
  if (sim.version.era !== 'jwt' || !header || !/^bearer /i.test(header)) return undefined;
  const found = sim.state.lookupToken(header.slice(7).trim());
  const user = found.state === 'ok' ? sim.state.users.get(found.record.user) : undefined;
  return user ? { user } : undefined;
}
