import type { Stores } from '../../../src/store/types.js';
import { detachedQueryCases } from './conformance-detached-queries.js';
import { credentialSessionCases } from './conformance-credential-sessions.js';
import { leaseCases } from './conformance-leases.js';
import { limitAndSessionCases } from './conformance-limits-sessions.js';
import { oidcCases } from './conformance-oidc.js';
import { secretDropCases } from './conformance-secret-drops.js';
import { tokenCases } from './conformance-tokens.js';
import type { Pass } from './time.js';

export interface StoresUnderTest {
  stores: Stores;
  /**
   * Lets `ms` pass on the clock these stores expire keys by: moved by hand where the stores read a clock the
   * test controls (the memory stores, under jest's fake Date), really waited where they do not (Redis).
   */
  pass(ms: number): Promise<void>;
  dispose(): Promise<void>;
}

/** The behaviour every Stores implementation owes the service; run against Redis and memory alike. */
export function storeConformance(label: string, open: () => Promise<StoresUnderTest>): void {
  describe(`${label} stores`, () => {
    let under: StoresUnderTest;
    beforeAll(async () => {
      under = await open();
    });
    afterAll(() => under.dispose());
    const stores = (): Stores => under.stores;
    const pass: Pass = (ms) => under.pass(ms);

    tokenCases(stores, pass);
    leaseCases(stores, pass);
    limitAndSessionCases(stores, pass);
    credentialSessionCases(stores, pass);
    secretDropCases(stores);
    oidcCases(stores, pass);
    detachedQueryCases(stores, pass);

    test('when storage is up, then ping resolves', async () => {
      await expect(stores().ping()).resolves.toBeUndefined();
    });
  });
}
