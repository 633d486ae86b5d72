import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ConfigError, loadConfig } from '../../../src/config.js';
import { credentialMapOf } from '../../../src/config/credential-map.js';
import { claimValues, firstMatch, graphFor } from '../../../src/oidc/credential-rules.js';
import { isAppError } from '../../../src/errors.js';

let dir: string;
let secretFile: string;
beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'tgbff-map-unit-'));
  secretFile = path.join(dir, 'tg-analysts');
  writeFileSync(secretFile, 'the-secret-value-0123456789');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const parse = (text: string, env: Record<string, string> = {}, passwordTokens = true) =>
  credentialMapOf({ path: 'map.yaml', text }, env, { passwordTokens });

const ISSUE_EXAMPLE = () => `claim: groups
rules:
  - name: analysts
    match: [graph-analysts]
    graphs: [social]
    credential: { secretFile: ${secretFile} }
  - name: admins
    match: [graph-admins]
    graphs: ['*']
    credential: { username: bff_admin, passwordEnv: TG_BFF_ADMIN_PASSWORD }
`;

describe('OIDC_CREDENTIAL_MAP parsing', () => {
  test("when the issue's example is read with its variable set, then two ordered rules by reference", () => {
    const { map, issues } = parse(ISSUE_EXAMPLE(), { TG_BFF_ADMIN_PASSWORD: 'pw' });
    expect(issues).toEqual([]);
    expect(map?.rules.map((r) => [r.name, r.claim, r.graphs, r.credential])).toEqual([
      ['analysts', 'groups', ['social'], { kind: 'secret', file: secretFile }],
      ['admins', 'groups', ['*'], { kind: 'password', username: 'bff_admin', env: 'TG_BFF_ADMIN_PASSWORD' }],
    ]);
  });

  test('when the same map is JSON, then it reads the same', () => {
    const json = JSON.stringify({
      rules: [{ name: 'a', match: ['g'], graphs: ['social'], credential: { secretFile } }],
    });
    expect(parse(json).map?.rules[0]?.name).toBe('a');
  });

  test('when several rules are bad, then every one is named at once, the missing variable and file by name, never a value', () => {
    const text = `rules:
  - name: ok
    match: [g]
    graphs: [social]
    credential: { secretFile: ${secretFile} }
  - name: inline
    match: [g]
    graphs: [social]
    credential: { secret: the-inline-secret-value }
  - name: noenv
    match: [g]
    graphs: [social]
    credential: { username: u, passwordEnv: NOT_SET_ANYWHERE }
  - name: nofile
    sub: someone
    graphs: [social]
    credential: { secretFile: /no/such/file }
  - name: ok
    match: [g]
    graphs: ['*', social]
    credential: { secretFile: ${secretFile} }
  - name: nothing
    graphs: [social]
    credential: { secretFile: ${secretFile} }
`;
    const { map, issues } = parse(text);
    expect(map).toBeUndefined();
    expect(issues).toEqual([
      expect.stringMatching(/^rule 2 \(inline\): credential: must be one of/),
      'rule 3 (noenv): credential: passwordEnv NOT_SET_ANYWHERE is not set',
      'rule 4 (nofile): credential: secretFile /no/such/file does not exist',
      'rule 5 (ok): name: is used by an earlier rule',
      'rule 5 (ok): graphs: * stands alone',
      'rule 6 (nothing): must match something: match (claim values), sub or email',
    ]);
    expect(issues.join('\n')).not.toContain('the-inline-secret-value');
  });

  test('when TigerGraph is 3.4, then a password credential is refused (it cannot mint tokens there)', () => {
    const { issues } = parse(ISSUE_EXAMPLE(), { TG_BFF_ADMIN_PASSWORD: 'pw' }, false);
    expect(issues).toEqual([expect.stringMatching(/^rule 2 \(admins\): credential: .*before TigerGraph 3.5/)]);
  });

  test('when the file is not YAML, or uses aliases, then one issue and nothing else', () => {
    expect(parse('rules: [').issues).toEqual(['is not valid YAML or JSON']);
    const bomb = `a: &a [x, x]\nrules: [*a]\n`;
    expect(parse(bomb).issues).toEqual(['is not valid YAML or JSON']);
  });

  test('when the service loads a map without OIDC_ISSUER, then the start stops naming OIDC_CREDENTIAL_MAP', () => {
    const mapFile = path.join(dir, 'map.yaml');
    writeFileSync(mapFile, ISSUE_EXAMPLE());
    let err: unknown;
    try {
      loadConfig({ NODE_ENV: 'test', OIDC_CREDENTIAL_MAP: mapFile, TG_BFF_ADMIN_PASSWORD: 'pw' });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).issues.map((i) => i.key)).toEqual(['OIDC_CREDENTIAL_MAP']);
  });

  test('when a map is set, then OIDC_AUDIENCE may be left unset (no resource asked for); without a map it may not', () => {
    const mapFile = path.join(dir, 'map-no-audience.yaml');
    writeFileSync(mapFile, ISSUE_EXAMPLE());
    const sso = {
      NODE_ENV: 'test',
      COOKIE_SECURE: 'false',
      OIDC_ISSUER: 'https://idp.example/realms/x',
      OIDC_CLIENT_ID: 'bff',
      OIDC_CLIENT_SECRET: 's3cret-value',
      OIDC_REDIRECT_URI: 'https://bff.example/auth/oidc/callback',
      TG_BFF_ADMIN_PASSWORD: 'pw',
    };
    const mapped = loadConfig({ ...sso, OIDC_CREDENTIAL_MAP: mapFile }).oidc;
    expect(mapped?.audience).toBe('');
    expect(mapped?.credentialMap?.rules.map((r) => r.name)).toEqual(['analysts', 'admins']);
    expect(() => loadConfig(sso)).toThrow(
      /OIDC_AUDIENCE: is required when OIDC_ISSUER is set without OIDC_CREDENTIAL_MAP/,
    );
  });
});

describe('credential-map rules against claims', () => {
  const map = () => parse(ISSUE_EXAMPLE(), { TG_BFF_ADMIN_PASSWORD: 'pw' }).map!;
  const codeOf = (f: () => unknown) => {
    try {
      f();
      return 'none';
    } catch (err) {
      return isAppError(err) ? err.code : 'other';
    }
  };

  test('when a person is in both groups, then the first rule in order wins; in none, no rule', () => {
    expect(firstMatch(map(), { sub: 'a', groups: ['graph-admins', 'graph-analysts'] })?.name).toBe('analysts');
    expect(firstMatch(map(), { sub: 'a', groups: ['graph-admins'] })?.name).toBe('admins');
    expect(firstMatch(map(), { sub: 'a', groups: [] })).toBeNull();
    expect(firstMatch(map(), { sub: 'a' })).toBeNull();
  });

  test('when the claim path is nested, then it is followed; a path-like or prototype name finds nothing', () => {
    expect(claimValues({ realm_access: { roles: ['r1'] } }, 'realm_access.roles')).toEqual(['r1']);
    expect(claimValues({ groups: 'single' }, 'groups')).toEqual(['single']);
    expect(claimValues({}, 'constructor.name')).toEqual([]);
    expect(claimValues({ groups: ['../graph-analysts'] }, 'groups')).toEqual(['../graph-analysts']);
    expect(firstMatch(map(), { groups: ['../graph-analysts', 'graph-analysts/..'] })).toBeNull();
  });

  test('when a claim is hostile (too many values, too long, not strings), then sso_claims_invalid', () => {
    expect(codeOf(() => claimValues({ groups: Array.from({ length: 1001 }, () => 'x') }, 'groups'))).toBe(
      'sso_claims_invalid',
    );
    expect(codeOf(() => claimValues({ groups: ['x'.repeat(513)] }, 'groups'))).toBe('sso_claims_invalid');
    expect(codeOf(() => claimValues({ groups: [{ $ne: 1 }] }, 'groups'))).toBe('sso_claims_invalid');
    expect(codeOf(() => claimValues({ groups: 7 }, 'groups'))).toBe('sso_claims_invalid');
  });

  test('when a rule matches by e-mail, then only a verified one counts', () => {
    const m = parse(`rules:
  - name: byMail
    email: ada@example.com
    graphs: [social]
    credential: { secretFile: ${secretFile} }
`).map!;
    expect(firstMatch(m, { email: 'ada@example.com', email_verified: true })?.name).toBe('byMail');
    expect(firstMatch(m, { email: 'ada@example.com' })).toBeNull();
  });

  test('when a login names a graph, then only one its rule opens; without one, the first listed', () => {
    const [analysts, admins] = map().rules;
    expect(graphFor(analysts!, null)).toBe('social');
    expect(graphFor(analysts!, 'social')).toBe('social');
    expect(codeOf(() => graphFor(analysts!, 'finance'))).toBe('graph_not_permitted');
    expect(graphFor(admins!, 'finance')).toBe('finance');
    // A password mints for one graph: `*` needs the login to name it.
    expect(codeOf(() => graphFor(admins!, null))).toBe('graph_not_permitted');
  });
});
