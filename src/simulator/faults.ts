import type { ServerResponse } from 'node:http';
import { delay, sendJson } from './http-server.js';
import type { Sim } from './sim-context.js';
import type { SeenRequest } from './types.js';

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

/** `holdData`: waits until the hold is lifted; false when the client left meanwhile (nothing to answer). */
export function holdWhileAsked(sim: Sim, res: ServerResponse, seen: SeenRequest): Promise<boolean> {
  if (sim.faults.holdData !== true) return Promise.resolve(true);
  return new Promise((resolve) => {
    const release = (): void => {
      sim.held.delete(release);
      res.off('close', onClose);
      resolve(true);
    };
    const onClose = (): void => {
      sim.held.delete(release);
      seen.closedEarly = true;
      resolve(false);
    };
    sim.held.add(release);
    res.once('close', onClose);
  });
}
