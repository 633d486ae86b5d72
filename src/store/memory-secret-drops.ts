import { encodeDrop, decodeDrop, type SecretDropStore } from './secret-drops.js';

/** The embedded (single-instance) drop list: the same semantics as Redis, no timers. */
export function createMemorySecretDrops(): SecretDropStore {
  const due = new Map<string, number>();
  return {
    async add(drop, dueAt) {
      due.set(encodeDrop(drop), dueAt);
    },
    async reschedule(drop, dueAt) {
      const member = encodeDrop(drop);
      if (due.has(member)) due.set(member, dueAt);
    },
    async remove(drop) {
      due.delete(encodeDrop(drop));
    },
    async claimDue(now, claimMs, limit) {
      const taken = [...due].filter(([, at]) => at <= now).sort((a, b) => a[1] - b[1]).slice(0, limit);
      for (const [member] of taken) due.set(member, now + claimMs);
      return taken.flatMap(([member]) => decodeDrop(member) ?? []);
    },
  };
}
