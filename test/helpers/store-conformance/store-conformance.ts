import type { Stores } from '../../../src/store/types.js';
import { credentialSessionCases } from './conformance-credential-sessions.js';
import { leaseCases } from './conformance-leases.js';
import { limitAndSessionCases } from './conformance-limits-sessions.js';
import { oidcCases } from './conformance-oidc.js';
import { secretDropCases } from './conformance-secret-drops.js';
import { tokenCases } from './conformance-tokens.js';

export interface StoresUnderTest {
  stores: Stores;
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

    tokenCases(stores);
    leaseCases(stores);
    limitAndSessionCases(stores);
    credentialSessionCases(stores);
    secretDropCases(stores);
    oidcCases(stores);

    test('when storage is up, then ping resolves', async () => {
      await expect(stores().ping()).resolves.toBeUndefined();
    });
  });
}
