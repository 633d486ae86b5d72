import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { rawRoundTrip } from '../helpers/raw-request.js';
import { elapse, until } from '../helpers/wait.js';
import { loginCookie, startPropertyRig, type PropertyRig } from './property-rig.js';

/**
 * The relay's deadline here, short so that waiting past it is cheap. The login's token call has the same
 * deadline, which a loaded machine can miss: the login is tried until one gets through, and what the test
 * judges is only what its own request added to the logs and the metrics.
 */
const UPSTREAM_TIMEOUT_MS = 800;

const RELAY_FAILURE = 'relay upstream failure';
const relayFailuresLogged = (rig: PropertyRig): number => rig.logs().split(RELAY_FAILURE).length - 1;

async function upstreamErrorCount(rig: PropertyRig): Promise<number> {
  return (await rig.service.metrics.upstreamErrors.get()).values.reduce((sum, v) => sum + v.value, 0);
}

/** Defects the properties found, each pinned by its shrunk counterexample. */
describe('found by the header-map property', () => {
  let rig: PropertyRig;
  let cookie: string;
  beforeAll(async () => {
    rig = await startPropertyRig({ env: { UPSTREAM_TIMEOUT_MS: String(UPSTREAM_TIMEOUT_MS) } });
    const secret = rig.sim.createSecret({ alias: 'defects' }).value;
    cookie = await until('a login within the short upstream deadline', () => loginCookie(rig, secret));
  });
  afterAll(async () => rig?.close());

  it('when Node drops a relayed request\'s connection while its session loads (counterexample: "Transfer-Encoding: identity"), then the relay stops at once instead of waiting for its deadline on a body that never comes', async () => {
    const failuresBefore = relayFailuresLogged(rig);
    const errorsBefore = await upstreamErrorCount(rig);
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
    expect(relayFailuresLogged(rig)).toBe(failuresBefore);
    expect(await upstreamErrorCount(rig)).toBe(errorsBefore);
    expect(rig.tapped.filter((t) => t.url === '/echo')).toEqual([]);
  });
});
