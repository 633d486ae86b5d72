import { queryNameOf } from '../../../src/http/pipeline/access-log.js';
import { describePrincipal } from '../../../src/http/session/principal.js';
import type { TgSession } from '../../../src/sessions/session-data.js';
import { logIds } from '../../../src/observability/log-ids.js';

const SID = 'Zq3vK0b1c2d3e4f5g6h7i8j9k0l1m2n3';
const base: TgSession = { secret: 'sealed', graph: 'social', createdAt: 0 };

describe('the principal of an access line', () => {
  const ids = logIds('signing-secret-one');

  it('when a session is described, then its id appears only as a 16-character keyed hash, stable per key', () => {
    const p = describePrincipal(ids, { hashUserNames: false })(SID, base);
    expect(p).toEqual({ login: 'secret', graph: 'social', session: expect.stringMatching(/^[A-Za-z0-9_-]{16}$/) });
    expect(JSON.stringify(p)).not.toContain(SID);
    expect(describePrincipal(ids, { hashUserNames: false })(SID, base).session).toBe(p.session);
    // Another signing secret (another deployment) gives another id: not a plain hash anyone could compute.
    expect(describePrincipal(logIds('signing-secret-two'), { hashUserNames: false })(SID, base).session).not.toBe(
      p.session,
    );
  });

  it('when the login was a password or SSO, then the user is named, or hashed with hashUserNames', () => {
    const password: TgSession = { ...base, username: 'alice', secretAlias: 'tgbff_1' };
    const oidc: TgSession = { ...base, graph: null, oidc: { sub: 'idp-subject-7' } };
    const plain = describePrincipal(ids, { hashUserNames: false });
    expect(plain(SID, password)).toMatchObject({ login: 'password', user: 'alice' });
    expect(plain(SID, oidc)).toMatchObject({ login: 'oidc', user: 'idp-subject-7' });
    expect(plain(SID, oidc)).not.toHaveProperty('graph');
    const hashed = describePrincipal(ids, { hashUserNames: true });
    const alice = hashed(SID, password).user;
    expect(alice).toMatch(/^[A-Za-z0-9_-]{16}$/);
    expect(alice).toBe(hashed('another-session', password).user);
    expect(hashed(SID, oidc).user).not.toBe(alice);
    // A user's hash never equals the hash of a session id of the same text.
    expect(hashed('alice', base).session).not.toBe(alice);
  });

  it('when a path is an installed-query call, then its query name is read; odd names and other paths give none', () => {
    expect(queryNameOf('/api/query/social/hello')).toBe('hello');
    expect(queryNameOf('/api/query/social/friends/extra')).toBe('friends');
    expect(queryNameOf('/api/query/social/q_1.v-2')).toBe('q_1.v-2');
    for (const path of [
      '/api/query/social',
      '/api/query/social/',
      '/api/query/social/%73ecret',
      '/api/query/social/' + 'x'.repeat(129),
      '/api/graph/social/vertices',
      '/api/queryx/social/hello',
    ])
      expect({ path, name: queryNameOf(path) }).toEqual({ path, name: undefined });
  });
});
