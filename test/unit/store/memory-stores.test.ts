import { randomBytes } from 'node:crypto';
import { createMemoryStores } from '../../../src/store/create-stores.js';
import { createCipher } from '../../../src/crypto/crypto.js';
import { storeConformance } from '../../helpers/store-conformance/store-conformance.js';

storeConformance('memory', async () => {
  const stores = createMemoryStores({ cipher: createCipher([{ id: 'k1', key: randomBytes(32) }]) });
  return { stores, dispose: () => stores.close() };
});
