import { startRig, type Rig, type RigOptions } from './app-rig.js';

/** The two session stores a rig can run on without a server of the test's own. */
export const STORES = ['redis', 'memory'] as const;
export type Store = (typeof STORES)[number];

/**
 * Runs `scenario` on a rig of each store, both at once. For tests that wait on a session's own clocks (idle
 * and absolute timeouts, sweeps): the two stores' waits run side by side instead of one after the other.
 * Each rig is closed whatever happens; the first failure is thrown, its message naming its store.
 */
export async function onEachStore(
  options: Omit<RigOptions, 'store'>,
  scenario: (rig: Rig, store: Store) => Promise<void>,
): Promise<void> {
  const results = await Promise.allSettled(
    STORES.map(async (store) => {
      const rig = await startRig({ ...options, store });
      try {
        await scenario(rig, store);
      } finally {
        await rig.close();
      }
    }),
  );
  results.forEach((result, i) => {
    if (result.status === 'fulfilled') return;
    const err: unknown = result.reason;
    if (err instanceof Error) err.message = `${STORES[i]!} store: ${err.message}`;
    throw err;
  });
}
