import { jest } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { createMemoryStores } from '../../../src/store/create-stores.js';
import { createCipher } from '../../../src/crypto/crypto.js';
import { storeConformance } from '../../helpers/store-conformance/store-conformance.js';

storeConformance('memory', async () => {
  // The memory stores expire entries by Date.now(), faked here and moved by hand: a case's TTL runs out
  // at once, and nothing a case checks can expire while a loaded machine keeps this worker waiting. The
  // leases' own waits sleep with node:timers/promises, which stays real: a wait ends on its next wake-up
  // once the clock was moved past its lapse or deadline. `until` (test/helpers/wait.ts) reads the faked
  // Date.now() too, so here it keeps trying until jest's test timeout.
  jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] });
  const stores = createMemoryStores({ cipher: createCipher([{ id: 'k1', key: randomBytes(32) }]) });
  return {
    stores,
    pass: (ms) => jest.advanceTimersByTimeAsync(ms).then(() => undefined),
    dispose: async () => {
      await stores.close();
      jest.useRealTimers();
    },
  };
});
