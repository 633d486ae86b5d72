import { findNetrcEntry, parseNetrc } from '../../../src/cli/netrc.js';

describe('netrc parsing', () => {
  it('when entries span lines or share one, then each machine gets its login and password', () => {
    const entries = parseNetrc(
      'machine a.example login alice password pa\nmachine b.example\n  login bob\n  password pb\n',
    );
    expect(entries).toEqual([
      { machine: 'a.example', login: 'alice', password: 'pa' },
      { machine: 'b.example', login: 'bob', password: 'pb' },
    ]);
  });

  it('when tokens are quoted, then spaces, quotes and backslashes inside them survive', () => {
    const [entry] = parseNetrc('machine h login "Ann Lee" password "p a\\"ss\\\\w"');
    expect(entry).toEqual({ machine: 'h', login: 'Ann Lee', password: 'p a"ss\\w' });
  });

  it('when there are comments, account tokens and macdef blocks, then they are skipped', () => {
    const text = [
      '# my hosts',
      'machine h login u account acct password p # trailing',
      'macdef init',
      'cd /tmp',
      'machine fake login evil password nope',
      '',
      'default login d password dp',
    ].join('\n');
    expect(parseNetrc(text)).toEqual([
      { machine: 'h', login: 'u', password: 'p' },
      { machine: undefined, login: 'd', password: 'dp' },
    ]);
  });

  it('when a host has an entry, then it wins over the default entry, matched case-insensitively', () => {
    const entries = parseNetrc('default login d password dp\nmachine DB.Example login u password p');
    expect(findNetrcEntry(entries, 'db.example')?.login).toBe('u');
    expect(findNetrcEntry(entries, 'other.example')?.login).toBe('d');
  });

  it('when a login is wanted, then only entries for that login (or naming none) qualify', () => {
    const entries = parseNetrc('machine h login a password pa\nmachine h password anyone\ndefault login b password pb');
    expect(findNetrcEntry(entries, 'h', 'a')?.password).toBe('pa');
    expect(findNetrcEntry(entries, 'h', 'c')?.password).toBe('anyone');
    expect(
      findNetrcEntry(parseNetrc('machine h login a password pa\ndefault login b password pb'), 'h', 'b')?.password,
    ).toBe('pb');
  });

  it('when nothing matches and there is no default, then there is no entry', () => {
    expect(findNetrcEntry(parseNetrc('machine h login a password p'), 'elsewhere')).toBeUndefined();
  });
});
