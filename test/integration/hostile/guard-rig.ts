import { randomBytes } from 'node:crypto';
import { startSimulator } from '../../../src/simulator/index.js';
import type { SimulatorHandle } from '../../../src/simulator/types.js';
import { uniquePrefix } from '../../helpers/redis-prefix.js';
import { dropPrefix, processEnv } from './process-env.js';
import { startServiceProcess, type ServiceProcess } from '../../helpers/service-process.js';
import { login } from '../multi-instance/cluster.js';

export interface GuardRig {
  sim: SimulatorHandle;
  bff: ServiceProcess;
  /** Logs a new browser in; returns its `name=value` cookie pair. */
  login(): Promise<string>;
  close(): Promise<void>;
}

/** A real service process (dist/main.js, or TGBFF_MAIN) in front of the simulator, on the machine's Redis. */
export async function startGuardRig(label: string, env: Record<string, string> = {}): Promise<GuardRig> {
  const sim = await startSimulator({});
  const secret = sim.createSecret({ alias: `guard_${randomBytes(3).toString('hex')}` }).value;
  const prefix = uniquePrefix(label);
  let bff: ServiceProcess;
  try {
    bff = await startServiceProcess(
      {
        ...processEnv(prefix),
        TG_RESTPP_URL: sim.restppUrl,
        TG_GSQL_URL: sim.gsqlUrl,
        TG_VERSION: sim.version,
        LOGIN_RATE_LIMIT: '1000',
        ...env,
      },
      30_000,
    );
  } catch (err) {
    await sim.close();
    throw err;
  }
  return {
    sim,
    bff,
    login: () => login(bff.url, secret),
    async close() {
      await bff.kill();
      await sim.close();
      await dropPrefix(prefix);
    },
  };
}
