import { randomUUID } from 'node:crypto';
import type { CredentialSessionEntry, Stores } from '../../../src/store/types.js';
import { LONG_TTL_MS, PAST_SHORT_TTL_MS, SHORT_TTL_MS, withinWindow, type Pass } from './time.js';

/** The per-credential session record behind SESSIONS_PER_CREDENTIAL (CredentialSessions in store/types.ts). */
/** The ids of an answer, in its order. */
const ids = (entries: CredentialSessionEntry[]): string[] => entries.map((e) => e.sid);

export function credentialSessionCases(stores: () => Stores, pass: Pass): void {
  describe('sessions per credential', () => {
    const limits = { ttlMs: LONG_TTL_MS, cap: 3, ceiling: 5 };
    const add = async (credential: string, sid: string, at: number, l = limits, info?: string) =>
      ids(await stores().credentialSessions.add(credential, sid, at, l, info));

    test('when a credential has at most cap sessions, then adding one answers nothing', async () => {
      const credential = randomUUID();
      for (let i = 0; i < 3; i++) expect(await add(credential, `s${i}`, 1000 + i)).toEqual([]);
    });

    test('when one more than cap is added, then every session on record is answered, oldest login first', async () => {
      const credential = randomUUID();
      for (const [sid, at] of [
        ['b', 2000],
        ['a', 1000],
        ['d', 4000],
      ] as const)
        await add(credential, sid, at, limits);
      expect(await add(credential, 'c', 3000, limits)).toEqual(['a', 'b', 'c', 'd']);
    });

    test('when sessions are removed, then they no longer count', async () => {
      const credential = randomUUID();
      for (const sid of ['a', 'b', 'c']) await add(credential, sid, Date.now(), limits);
      await stores().credentialSessions.remove(credential, ['a', 'b']);
      expect(await add(credential, 'd', Date.now(), limits)).toEqual([]);
      expect(await add(credential, 'e', Date.now() + 1, limits)).toEqual([]);
    });

    test('when nobody prunes, then the record never holds more than the ceiling (the oldest go)', async () => {
      const credential = randomUUID();
      let last: string[] = [];
      for (let i = 0; i < 9; i++) last = await add(credential, `s${i}`, 1000 + i, limits);
      expect(last).toEqual(['s3', 's4', 's5', 's6', 's7', 's8']);
      expect(await add(credential, 's9', 2000, limits)).toEqual(['s4', 's5', 's6', 's7', 's8', 's9']);
    });

    test('when the newest login is ttlMs old, then the record is gone', async () => {
      const short = { ...limits, ttlMs: SHORT_TTL_MS };
      // Four on record (one more than cap, so all are answered) before any of them can have expired.
      const credential = await withinWindow(SHORT_TTL_MS, async () => {
        const credential = randomUUID();
        for (const sid of ['a', 'b', 'c']) await add(credential, sid, Date.now(), short);
        expect(await add(credential, 'x', Date.now(), short)).toEqual(['a', 'b', 'c', 'x']);
        return credential;
      });
      await pass(PAST_SHORT_TTL_MS);
      expect(await add(credential, 'd', Date.now(), short)).toEqual([]);
    });

    test('when sessions are added with text, then the list answers each with its login time and text, oldest first', async () => {
      const credential = randomUUID();
      await add(credential, 'b', 2000, limits, '{"n":2}');
      await add(credential, 'a', 1000, limits, '{"n":1}');
      await add(credential, 'c', 3000, limits);
      expect(await stores().credentialSessions.list(credential)).toEqual([
        { sid: 'a', at: 1000, info: '{"n":1}' },
        { sid: 'b', at: 2000, info: '{"n":2}' },
        { sid: 'c', at: 3000, info: null },
      ]);
      // Over the cap, the answer carries the text too.
      expect(await stores().credentialSessions.add(credential, 'd', 4000, limits, 'x')).toEqual([
        { sid: 'a', at: 1000, info: '{"n":1}' },
        { sid: 'b', at: 2000, info: '{"n":2}' },
        { sid: 'c', at: 3000, info: null },
        { sid: 'd', at: 4000, info: 'x' },
      ]);
      expect(await stores().credentialSessions.list(randomUUID())).toEqual([]);
    });

    test('when text is updated, then only an id still on record takes it (a removed id stays removed)', async () => {
      const credential = randomUUID();
      await add(credential, 'a', 1000, limits, 'pending');
      await add(credential, 'b', 2000, limits, 'pending');
      await stores().credentialSessions.update(credential, 'a', 'saved');
      await stores().credentialSessions.remove(credential, ['b']);
      await stores().credentialSessions.update(credential, 'b', 'saved');
      expect(await stores().credentialSessions.list(credential)).toEqual([{ sid: 'a', at: 1000, info: 'saved' }]);
    });

    test('when the ceiling drops the oldest, then their text goes with them', async () => {
      const credential = randomUUID();
      for (let i = 0; i < 7; i++) await add(credential, `s${i}`, 1000 + i, limits, `t${i}`);
      expect(await stores().credentialSessions.list(credential)).toEqual(
        [2, 3, 4, 5, 6].map((i) => ({ sid: `s${i}`, at: 1000 + i, info: `t${i}` })),
      );
    });

    test('when two credentials fill up, then each counts only its own', async () => {
      const [one, two] = [randomUUID(), randomUUID()];
      for (const sid of ['a', 'b', 'c']) await add(one, sid, Date.now(), limits);
      expect(await add(two, 'x', Date.now(), limits)).toEqual([]);
    });
  });
}
