import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { rawRoundTrip } from '../helpers/raw-request.js';
import { elapse } from '../helpers/wait.js';
import { loginCookie, startPropertyRig, type PropertyRig } from './property-rig.js';

/** The relay's deadline here, short so that waiting past it is cheap. */
const UPSTREAM_TIMEOUT_MS = 800;

/** Defects the properties found, each pinned by its shrunk counterexample. */
describe('found by the header-map property', () => {
  let rig: PropertyRig;
  let cookie: string;
  beforeAll(async () => {
    rig = await startPropertyRig({ env: { UPSTREAM_TIMEOUT_MS: String(UPSTREAM_TIMEOUT_MS) } });
    cookie = await loginCookie(rig, rig.sim.createSecret({ alias: 'defects' }).value);
  });
  afterAll(async () => rig?.close());

  it('when Node drops a relayed request\'s connection while its session loads (counterexample: "Transfer-Encoding: identity"), then the relay stops at once instead of waiting for its deadline on a body that never comes', async () => {
    const answer = await rawRoundTrip(
      rig.port,
      `GET /api/echo HTTP/1.1\r\nHost: x\r\nCookie: ${cookie}\r\nX-Requested-With: XMLHttpRequest\r\nTransfer-Encoding: identity\r\n\r\n`,
    );
    expect(answer.status).toBe(400); // Node's own answer: the connection is gone
    await elapse(
      1.5 * UPSTREAM_TIMEOUT_MS,
      "past the relay's deadline: a request stuck in its body read would have timed out by now",
    );

    // Before the fix the request sat in the body read until the deadline, then counted and logged a timeout.
    expect(rig.logs()).not.toContain('relay upstream failure');
    expect((await rig.service.metrics.upstreamErrors.get()).values.filter((v) => v.value > 0)).toEqual([]);
    expect(rig.tapped.filter((t) => t.url === '/echo')).toEqual([]);
  });
});
