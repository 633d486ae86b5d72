import type { DueQueue } from '../due-queue.js';

/** The embedded (single-instance) due queue: the same semantics as Redis, no timers. */
export function createMemoryDueQueue(): DueQueue {
  const due = new Map<string, number>();
  return {
    async add(member, dueAt) {
      due.set(member, dueAt);
    },
    async reschedule(member, dueAt) {
      if (due.has(member)) due.set(member, dueAt);
    },
    async remove(...members) {
      for (const member of members) due.delete(member);
    },
    async claimDue(now, claimMs, limit) {
      const taken = [...due]
        .filter(([, at]) => at <= now)
        .sort((a, b) => a[1] - b[1])
        .slice(0, limit);
      for (const [member] of taken) due.set(member, now + claimMs);
      return taken.map(([member]) => member);
    },
  };
}
