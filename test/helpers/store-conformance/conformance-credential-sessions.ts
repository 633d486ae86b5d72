import { randomUUID } from 'node:crypto';
import type { Stores } from '../../../src/store/types.js';
import { LONG_TTL_MS, PAST_SHORT_TTL_MS, SHORT_TTL_MS, withinWindow, type Pass } from './time.js';

/** The per-credential session record behind SESSIONS_PER_CREDENTIAL (CredentialSessions in store/types.ts). */
export function credentialSessionCases(stores: () => Stores, pass: Pass): void {
  describe('sessions per credential', () => {
    const limits = { ttlMs: LONG_TTL_MS, cap: 3, ceiling: 5 };

    test('when a credential has at most cap sessions, then adding one answers nothing', async () => {
      const credential = randomUUID();
      for (let i = 0; i < 3; i++)
        expect(await stores().credentialSessions.add(credential, `s${i}`, 1000 + i, limits)).toEqual([]);
    });

    test('when one more than cap is added, then every session on record is answered, oldest login first', async () => {
      const credential = randomUUID();
      for (const [sid, at] of [
        ['b', 2000],
        ['a', 1000],
        ['d', 4000],
      ] as const)
        await stores().credentialSessions.add(credential, sid, at, limits);
      expect(await stores().credentialSessions.add(credential, 'c', 3000, limits)).toEqual(['a', 'b', 'c', 'd']);
    });

    test('when sessions are removed, then they no longer count', async () => {
      const credential = randomUUID();
      for (const sid of ['a', 'b', 'c']) await stores().credentialSessions.add(credential, sid, Date.now(), limits);
      await stores().credentialSessions.remove(credential, ['a', 'b']);
      expect(await stores().credentialSessions.add(credential, 'd', Date.now(), limits)).toEqual([]);
      expect(await stores().credentialSessions.add(credential, 'e', Date.now() + 1, limits)).toEqual([]);
    });

    test('when nobody prunes, then the record never holds more than the ceiling (the oldest go)', async () => {
      const credential = randomUUID();
      let last: string[] = [];
      for (let i = 0; i < 9; i++) last = await stores().credentialSessions.add(credential, `s${i}`, 1000 + i, limits);
      expect(last).toEqual(['s3', 's4', 's5', 's6', 's7', 's8']);
      expect(await stores().credentialSessions.add(credential, 's9', 2000, limits)).toEqual([
        's4',
        's5',
        's6',
        's7',
        's8',
        's9',
      ]);
    });

    test('when the newest login is ttlMs old, then the record is gone', async () => {
      const short = { ...limits, ttlMs: SHORT_TTL_MS };
      // Four on record (one more than cap, so all are answered) before any of them can have expired.
      const credential = await withinWindow(SHORT_TTL_MS, async () => {
        const credential = randomUUID();
        for (const sid of ['a', 'b', 'c']) await stores().credentialSessions.add(credential, sid, Date.now(), short);
        expect(await stores().credentialSessions.add(credential, 'x', Date.now(), short)).toEqual(['a', 'b', 'c', 'x']);
        return credential;
      });
      await pass(PAST_SHORT_TTL_MS);
      expect(await stores().credentialSessions.add(credential, 'd', Date.now(), short)).toEqual([]);
    });

    test('when two credentials fill up, then each counts only its own', async () => {
      const [one, two] = [randomUUID(), randomUUID()];
      for (const sid of ['a', 'b', 'c']) await stores().credentialSessions.add(one, sid, Date.now(), limits);
      expect(await stores().credentialSessions.add(two, 'x', Date.now(), limits)).toEqual([]);
    });
  });
}
