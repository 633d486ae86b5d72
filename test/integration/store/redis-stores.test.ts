import { randomBytes } from 'node:crypto';
import { createRedisStores } from '../../../src/store/create-stores.js';
import { createCipher } from '../../../src/crypto/crypto.js';
import { createRedisClient } from '../../../src/store/redis/client.js';
import { deleteKeysWithPrefix, uniquePrefix } from '../../helpers/redis-prefix.js';
import { storeConformance } from '../../helpers/store-conformance/store-conformance.js';

storeConformance('redis', async () => {
  const prefix = uniquePrefix('store-conformance');
  const redis = createRedisClient({ mode: 'standalone', url: 'redis://127.0.0.1:6379' });
  await redis.connect();
  const stores = createRedisStores({ redis, prefix, cipher: createCipher([{ id: 'k1', key: randomBytes(32) }]) });
  return {
    stores,
    dispose: async () => {
      await deleteKeysWithPrefix(redis, prefix);
      await stores.close();
    },
  };
});
