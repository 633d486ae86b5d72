import { createMemoryDueQueue } from './due-queue.js';
import { secretDropsOver, type SecretDropStore } from '../secret-drops.js';

/** The embedded (single-instance) drop list: the same semantics as Redis, no timers. */
export function createMemorySecretDrops(): SecretDropStore {
  return secretDropsOver(createMemoryDueQueue());
}
