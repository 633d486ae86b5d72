import { afterEach, describe, expect, it } from '@jest/globals';
import { startSimulator, type SimulatorHandle } from '../../../src/simulator/index.js';
import type { RelayAuth } from '../../../src/relay/relay.js';
import { rawRequest } from '../../helpers/raw-request.js';
import { startRelayApp, type RelayApp } from './relay-harness.js';

/** Mints real tokens from the simulator with a secret, the way the token broker would. */
class SimulatorAuth implements RelayAuth {
  mints = 0;
  private current: string | null = null;
  constructor(
    private readonly sim: SimulatorHandle,
    private readonly secret: string,
  ) {}

  async token(): Promise<string> {
    return this.current ?? (await this.mint());
  }

  async rejected(token: string): Promise<string | null> {
    if (token === this.current) this.current = null;
    return this.mint();
  }

  private async mint(): Promise<string> {
    this.mints++;
    const res = await fetch(`${this.sim.restppUrl}/requesttoken`, {
      method: 'POST',
      body: JSON.stringify({ secret: this.secret }),
    });
    const body = (await res.json()) as { token?: string; results?: { token?: string } };
    this.current = body.results?.token ?? body.token ?? null;
    if (this.current === null) throw new Error('simulator minted no token');
    return this.current;
  }
}

describe.each([
  ['3.9.3', 401],
  ['4.1.0', 403],
] as const)('relay against the simulator (TigerGraph %s, auth failures as %i)', (version, authFailureStatus) => {
  let sim: SimulatorHandle;
  let relay: RelayApp<SimulatorAuth>;

  afterEach(async () => {
    await relay.close();
    await sim.close();
  });

  it('when the token is revoked upstream between requests, then the next request is replayed with a fresh token and succeeds', async () => {
    sim = await startSimulator({ version, authFailureStatus });
    const auth = new SimulatorAuth(sim, sim.createSecret({ graph: 'social' }).value);
    relay = await startRelayApp(sim.restppUrl, { auth });

    const first = await rawRequest(relay.port, '/api/echo', { headers: { cookie: 'sid=1' } });
    expect(first.status).toBe(200);
    sim.revokeToken(await auth.token());
    sim.resetCounts();
    const second = await rawRequest(relay.port, '/api/echo', { headers: { cookie: 'sid=1' } });

    expect(second.status).toBe(200);
    expect(JSON.parse(second.body)).toMatchObject({ error: false });
    expect(auth.mints).toBe(2);
    expect(sim.counts()['GET /echo']).toBe(2);
    const echoes = sim.seen().filter((s) => s.path === '/echo');
    expect(echoes.slice(-2).map((s) => s.auth)).toEqual(['invalid', 'ok']);
    expect(echoes.every((s) => s.headers.cookie === undefined)).toBe(true);
  });
});
