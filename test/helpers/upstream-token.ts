import type { SimulatorHandle } from '../../src/simulator/types.js';

/** The bearer token the data server saw on the last request for `path`. */
export function lastToken(sim: SimulatorHandle, path: string): string {
  const auth = sim
    .seen()
    .filter((r) => r.path === path)
    .at(-1)!.headers.authorization as string;
  return auth.replace('Bearer ', '');
}

/** What the data server answers a request carrying `token` now: 'ok', or its code (REST-10016 unknown, REST-10019 expired). */
export async function upstreamVerdict(sim: SimulatorHandle, token: string): Promise<string> {
  const res = await fetch(`${sim.restppUrl}/echo`, { headers: { Authorization: `Bearer ${token}` } });
  const body = (await res.json()) as { code?: string; error?: boolean };
  return body.error ? (body.code ?? 'error') : 'ok';
}

/** The DELETE /requesttoken calls the data server received for `token` (any status, or the one given). */
export function deletesOf(sim: SimulatorHandle, token: string, status?: number) {
  return sim
    .seen()
    .filter(
      (r) =>
        r.method === 'DELETE' &&
        r.path === '/requesttoken' &&
        r.bodyText?.includes(token) &&
        (status === undefined || r.status === status),
    );
}
