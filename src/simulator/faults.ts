import type { ServerResponse } from 'node:http';
import { delay, sendJson } from './http-server.js';
import type { Sim } from './sim-context.js';

/**
 * Test knobs for token calls. Answers with a simulator-specific code (SIM-…) so a failure injected
 * here can never be mistaken for a real TigerGraph answer. Returns true when it answered.
 */
export async function applyTokenFaults(sim: Sim, res: ServerResponse): Promise<boolean> {
  const { tokenLatencyMs, tokenForcedStatus, tokenFailureRate } = sim.faults;
  if (tokenLatencyMs && tokenLatencyMs > 0) await delay(tokenLatencyMs);
  if (tokenForcedStatus !== undefined) {
    sendJson(res, tokenForcedStatus, {
      error: true,
      message: `Simulated token failure (forced status ${tokenForcedStatus}).`,
      code: 'SIM-FORCED',
    });
    return true;
  }
  if (tokenFailureRate && Math.random() < tokenFailureRate) {
    sendJson(res, 500, { error: true, message: 'Simulated token failure (failure rate).', code: 'SIM-FAILURE' });
    return true;
  }
  return false;
}

/** Test knob for data calls (a 5xx burst from a struggling data server); token calls keep working. */
export function applyDataFaults(sim: Sim, res: ServerResponse, path: string): boolean {
  const status = sim.faults.dataForcedStatus;
  if (status === undefined || path === '/requesttoken') return false;
  sendJson(res, status, {
    error: true,
    message: `Simulated data failure (forced status ${status}).`,
    code: 'SIM-FORCED',
  });
  return true;
}
