/** The simulator's data and /__sim admin surfaces, as the benchmark needs them. */
export interface SimulatorClient {
  restppUrl: string;
  gsqlUrl: string;
  /** A new secret for graph `social` (one per benchmark user). */
  createSecret(): Promise<string>;
  /** A token straight from /requesttoken, for the direct subject and the plain peer. */
  mintToken(secret: string, lifetimeSec: number): Promise<string>;
  /** Calls to the token endpoints so far (mint, refresh, delete, any era). */
  tokenCalls(): Promise<number>;
}

export function simulatorClient(restppUrl: string, gsqlUrl: string): SimulatorClient {
  return {
    restppUrl,
    gsqlUrl,
    async createSecret() {
      const body = await postJson(`${restppUrl}/__sim/secrets`, { graph: 'social' });
      return stringField(body, 'value');
    },
    mintToken: (secret, lifetimeSec) => mintToken(restppUrl, secret, lifetimeSec),
    async tokenCalls() {
      const res = await fetch(`${restppUrl}/__sim/counts`);
      const counts = (await res.json()) as Record<string, number>;
      let total = 0;
      for (const [key, n] of Object.entries(counts)) if (/requesttoken|\/gsql\/v1\/tokens/.test(key)) total += n;
      return total;
    },
  };
}

export async function mintToken(restppUrl: string, secret: string, lifetimeSec: number): Promise<string> {
  const body = await postJson(`${restppUrl}/requesttoken`, { secret, lifetime: String(lifetimeSec) });
  return stringField(body, 'token');
}

async function postJson(url: string, payload: unknown): Promise<unknown> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(payload),
  });
  const body: unknown = await res.json();
  if (!res.ok) throw new Error(`POST ${new URL(url).pathname}: ${res.status}`);
  return body;
}

function stringField(body: unknown, key: string): string {
  const value = (body as Record<string, unknown> | null)?.[key];
  if (typeof value !== 'string') throw new Error(`simulator answer has no "${key}"`);
  return value;
}
