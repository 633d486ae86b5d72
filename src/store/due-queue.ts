/**
 * Entries due at a time, taken by sweepers: the one shape behind the secret drops and the session-end
 * index. Members are opaque strings (each user encodes its own); identical entries encode identically,
 * so whoever wrote one can name it again to move or remove it.
 */
export interface DueQueue {
  /** Records `member` as due at `dueAt` (epoch ms); an existing member just moves. */
  add(member: string, dueAt: number): Promise<void>;
  /** Moves a member's due time; a member already removed stays removed. */
  reschedule(member: string, dueAt: number): Promise<void>;
  remove(...members: string[]): Promise<void>;
  /**
   * Takes up to `limit` members due at `now` and hides them until `now + claimMs`, in one atomic step:
   * two sweepers never get the same member, and one that dies mid-work leaves it to be taken again later.
   */
  claimDue(now: number, claimMs: number, limit: number): Promise<string[]>;
}

/** Decodes claimed members; ones that do not decode are removed, or they would come back forever. */
export async function claimDecoded<T>(
  queue: DueQueue,
  decode: (member: string) => T | undefined,
  args: { now: number; claimMs: number; limit: number },
): Promise<Array<{ member: string; value: T }>> {
  const members = await queue.claimDue(args.now, args.claimMs, args.limit);
  const decoded = members.map((member) => ({ member, value: decode(member) }));
  const junk = decoded.filter((d) => d.value === undefined).map((d) => d.member);
  if (junk.length > 0) await queue.remove(...junk);
  return decoded.flatMap((d) => (d.value === undefined ? [] : [{ member: d.member, value: d.value }]));
}
