import { claimDecoded, type DueQueue } from './due-queue.js';

/**
 * Secrets the service created for password logins, waiting to be dropped once their session is over.
 * Logout drops them at once; sessions that expire without a logout leave them here for the sweeper.
 */
export interface SecretDrop {
  alias: string;
  graph: string | null;
  /**
   * The secret, sealed with the session Cipher (the same string the session holds). The drop runs as
   * the secret itself (`__GSQL__secret`), because the user's password is never kept.
   */
  sealedSecret: string;
}

export interface SecretDropStore {
  /** Records that `drop` is due at `dueAt` (epoch ms). */
  add(drop: SecretDrop, dueAt: number): Promise<void>;
  /** Moves an entry's due time (e.g. to now, after a failed drop); an entry already removed stays removed. */
  reschedule(drop: SecretDrop, dueAt: number): Promise<void>;
  remove(drop: SecretDrop): Promise<void>;
  /**
   * Takes up to `limit` entries due at `now` and hides them until `now + claimMs`, in one atomic step:
   * two sweepers never get the same entry, and one that dies mid-drop leaves it to be taken again later.
   */
  claimDue(now: number, claimMs: number, limit: number): Promise<SecretDrop[]>;
}

/** One string per drop, identical for identical drops, so logout can name the entry login wrote. */
export function encodeDrop(drop: SecretDrop): string {
  return JSON.stringify([drop.alias, drop.graph, drop.sealedSecret]);
}

export function decodeDrop(member: string): SecretDrop | undefined {
  try {
    const value: unknown = JSON.parse(member);
    if (!Array.isArray(value) || value.length !== 3) return undefined;
    const [alias, graph, sealedSecret] = value as unknown[];
    if (typeof alias !== 'string' || typeof sealedSecret !== 'string') return undefined;
    if (graph !== null && typeof graph !== 'string') return undefined;
    return { alias, graph, sealedSecret };
  } catch {
    return undefined;
  }
}

/** Secret drops as encoded members of a due queue. */
export function secretDropsOver(queue: DueQueue): SecretDropStore {
  return {
    add: (drop, dueAt) => queue.add(encodeDrop(drop), dueAt),
    reschedule: (drop, dueAt) => queue.reschedule(encodeDrop(drop), dueAt),
    remove: (drop) => queue.remove(encodeDrop(drop)),
    async claimDue(now, claimMs, limit) {
      return (await claimDecoded(queue, decodeDrop, { now, claimMs, limit })).map((d) => d.value);
    },
  };
}
