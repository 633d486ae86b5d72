import { afterEach, describe, expect, it } from '@jest/globals';
import { createServer } from 'node:net';
import { createTokenApi } from '../../../packages/client/src/restpp-client.js';
import { expectAppError } from './expect-app-error.js';
import { INTO_REFRESH_WINDOW_MS, LIFETIME_SEC, SESSION_TTL_MS, newSid, startRig, type Rig } from './rig.js';

/** A port nothing listens on: bound once by us, then released. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

const LABEL = 'broker-upstream';

describe('token broker against other TigerGraph setups', () => {
  let rig: Rig | undefined;
  afterEach(async () => {
    await rig?.close();
    rig = undefined;
  });

  it('when the server is 4.1 (JWT), then a due refresh mints a new JWT with expiry now + lifetime', async () => {
    rig = await startRig({ store: 'memory', label: LABEL, sim: { version: '4.1.0' } });
    const broker = rig.broker();
    const sid = newSid();
    const first = await broker.token(sid, rig.secret, SESSION_TTL_MS);
    rig.clock.advance(INTO_REFRESH_WINDOW_MS);
    rig.sim.resetCounts();

    const second = await broker.token(sid, rig.secret, SESSION_TTL_MS);

    expect(rig.count('POST /gsql/v1/tokens')).toBe(1);
    expect(rig.tokenCalls()).toBe(1);
    expect(second.token).not.toBe(first.token);
    expect(second.token.split('.')).toHaveLength(3);
    expect(second.expiresAt).toBeCloseTo(rig.clock.now() / 1000 + LIFETIME_SEC, -1);
    expect((await rig.stores.tokens.get(sid))?.token).toBe(second.token);
  });

  it('when data-server authentication is disabled, then mint and token() fail with 502 upstream_auth_disabled', async () => {
    rig = await startRig({ store: 'memory', label: LABEL, sim: { authEnabled: false } });
    const login = await expectAppError(rig.broker().mint(rig.secret), 502, 'upstream_auth_disabled');
    expect(login.message).toMatch(/authentication is disabled/i);
    await expectAppError(rig.broker().token(newSid(), rig.secret, SESSION_TTL_MS), 502, 'upstream_auth_disabled');
  });

  it('when the token call outlasts the client timeout, then 504 upstream_timeout', async () => {
    rig = await startRig({ store: 'memory', label: LABEL, clientTimeoutMs: 200 });
    rig.sim.setFaults({ tokenLatencyMs: 2_000 });
    await expectAppError(rig.broker().token(newSid(), rig.secret, SESSION_TTL_MS), 504, 'upstream_timeout');
  });

  it('when the data server is down, then 502 upstream_unavailable and nothing is stored', async () => {
    rig = await startRig({ store: 'memory', label: LABEL });
    const api = createTokenApi({ restppUrl: `http://127.0.0.1:${await closedPort()}`, version: rig.sim.version });
    const sid = newSid();
    try {
      await expectAppError(rig.broker({ api }).token(sid, rig.secret, SESSION_TTL_MS), 502, 'upstream_unavailable');
    } finally {
      await api.close();
    }
    expect(await rig.stores.tokens.get(sid)).toBeNull();
  });
});
