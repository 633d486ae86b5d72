import { startSimulator, type SimulatorHandle } from '../../../src/simulator/index.js';
import { TigerGraphConnection } from '../../../packages/client/src/connection.js';
import { maskSecret } from '../../../packages/client/src/errors.js';
import { wireEraOf } from '../../../packages/client/src/capabilities.js';
import { expectKind, VERSIONS } from './fixtures.js';

describe.each(VERSIONS)('TigerGraphConnection secret methods against the simulator in version %s', (version) => {
  const rest = wireEraOf(version) === 'jwt';
  let sim: SimulatorHandle;
  let conn: TigerGraphConnection;
  let warnings: string[];

  beforeEach(async () => {
    sim = await startSimulator({ version });
    warnings = [];
    conn = new TigerGraphConnection({
      restppUrl: sim.restppUrl,
      gsqlUrl: sim.gsqlUrl,
      version,
      graphname: 'social',
      warn: (message) => warnings.push(message),
    });
  });

  afterEach(async () => {
    await conn.close();
    await sim.close();
  });

  const adminCalls = () => sim.seen().filter((s) => s.port === 'gsql' && !s.path.startsWith('/gsql/v1/tokens'));

  test('when createSecret gets an alias, then it returns the secret string and the secret mints tokens', async () => {
    const secret = await conn.createSecret('mine');
    expect(secret).toMatch(/^[a-z0-9]{32}$/);
    expect(await conn.getSecrets()).toEqual({ mine: maskSecret(secret) });
    await conn.getToken(secret);
    expect(sim.tokens()).toEqual([expect.objectContaining({ secretAlias: 'mine' })]);
  });

  test('when createSecret runs, then the admin server gets the statement the way its version takes it', async () => {
    await conn.createSecret('mine');
    // First a USE GRAPH of its own (a refused one is HTTP 200 prose), then the statement.
    const [check, call] = adminCalls();
    const basic = `Basic ${Buffer.from('tigergraph:tigergraph').toString('base64')}`;
    expect(call?.headers['authorization']).toBe(basic);
    expect(check?.headers['authorization']).toBe(basic);
    const form = (text: string | undefined) => decodeURIComponent((text ?? '').replace(/\+/g, ' '));
    expect(rest ? check?.bodyText : form(check?.bodyText)).toBe('USE GRAPH social\n');
    if (rest) {
      expect([call?.method, call?.path, call?.query]).toEqual(['POST', '/gsql/v1/secrets', 'alias=mine']);
    } else {
      expect([call?.method, call?.path]).toEqual(['POST', '/gsqlserver/gsql/file']);
      expect(call?.headers['content-type']).toBe('application/x-www-form-urlencoded');
      expect(decodeURIComponent((call?.bodyText ?? '').replace(/\+/g, ' '))).toBe(
        'USE GRAPH social\nCREATE SECRET mine',
      );
    }
  });

  test('when createSecret has no alias and withAlias, then it returns {generated alias: secret}, even with Token lines in SHOW SECRET', async () => {
    // A secret with a live token puts "- Token:" lines between Secret and Alias in SHOW SECRET.
    const busy = sim.createSecret({ alias: 'busy' }).value;
    await conn.getToken(busy, false);
    const made = await conn.createSecret('', true);
    const [alias, secret] = Object.entries(made)[0] ?? [];
    expect(Object.keys(made)).toHaveLength(1);
    expect(alias).toMatch(/^AUTO_GENERATED_ALIAS_[A-Za-z0-9]{7}$/);
    expect(await conn.getSecrets()).toEqual({
      busy: maskSecret(busy),
      [alias as string]: maskSecret(secret as string),
    });
  });

  test('when createSecret gets an alias and withAlias, then the mapping uses that alias', async () => {
    const made = await conn.createSecret('named', true);
    expect(Object.keys(made)).toEqual(['named']);
    expect(made['named']).toMatch(/^[a-z0-9]{32}$/);
  });

  test('when createSecret reuses an existing alias, then it raises secret_exists', async () => {
    sim.createSecret({ alias: 'taken' });
    const err = await expectKind(conn.createSecret('taken'), 'secret_exists');
    expect(err.code).toBe('E-00001');
  });

  test('when getSecrets lists, then every secret is masked and a secret with tokens is not dropped from the list', async () => {
    const a = sim.createSecret({ alias: 'a' }).value;
    const b = sim.createSecret({ alias: 'b' }).value;
    await conn.getToken(a, false);
    await conn.getToken(a, false);
    const listed = await conn.getSecrets();
    expect(listed).toEqual({ a: maskSecret(a), b: maskSecret(b) });
    expect(JSON.stringify(listed)).not.toContain(a);
  });

  test('when showSecrets is called twice, then it warns once and answers as getSecrets', async () => {
    sim.createSecret({ alias: 'x' });
    const first = await conn.showSecrets();
    const second = await conn.showSecrets();
    expect(first).toEqual(await conn.getSecrets());
    expect(second).toEqual(first);
    expect(warnings).toEqual(['showSecrets() is deprecated; use getSecrets() instead.']);
  });

  test('when dropSecret gets one alias or a list, then each is dropped and the answer says so', async () => {
    for (const alias of ['one', 'two', 'three']) sim.createSecret({ alias });
    expect(await conn.dropSecret('one')).toBe('Successfully dropped secrets: one');
    expect(await conn.dropSecret(['two', 'three'])).toBe(
      'Successfully dropped secrets: two\nSuccessfully dropped secrets: three',
    );
    expect(await conn.getSecrets()).toEqual({});
    if (rest) expect(sim.counts()['DELETE /gsql/v1/secrets/one']).toBe(1);
    // 3 drops, each after a USE GRAPH of its own, and the listing.
    else expect(sim.counts()['POST /gsqlserver/gsql/file']).toBe(7);
  });

  test('when dropSecret names a missing alias, then ignoreErrors (default true) hides it and false raises secret_not_found', async () => {
    sim.createSecret({ alias: 'real' });
    expect(await conn.dropSecret(['nosuch', 'real'])).toBe(
      'Failed to drop secrets: nosuch does not exist\nSuccessfully dropped secrets: real',
    );
    expect(await conn.dropSecret('nosuch', true)).toContain('Failed to drop secrets');
    await expectKind(conn.dropSecret('nosuch', false), 'secret_not_found');
  });

  test('when dropSecret fails for another reason (wrong admin password), then it is re-raised even with ignoreErrors', async () => {
    sim.createSecret({ alias: 'real' });
    const wrong = new TigerGraphConnection({
      restppUrl: sim.restppUrl,
      gsqlUrl: sim.gsqlUrl,
      version,
      graphname: 'social',
      password: 'not-the-password',
    });
    try {
      const err = await expectKind(wrong.dropSecret('real', true), 'invalid_credentials');
      expect(err.status).toBe(401);
      expect(err.message).not.toContain('not-the-password');
      await expectKind(wrong.getSecrets(), 'invalid_credentials');
      await expectKind(wrong.createSecret('new'), 'invalid_credentials');
    } finally {
      await wrong.close();
    }
    expect(Object.keys(await conn.getSecrets())).toEqual(['real']);
  });

  test('when an alias is not an identifier, then it is refused before reaching the admin server', async () => {
    await expectKind(conn.createSecret('bad alias\nDROP SECRET real'), 'bad_request');
    await expectKind(conn.dropSecret('x; DROP SECRET y', false), 'bad_request');
    expect(adminCalls()).toHaveLength(0);
  });
});

describe('TigerGraphConnection without a graph name', () => {
  test('when a 3.x secret call needs the graph, then it says to pass graphname', async () => {
    const conn = new TigerGraphConnection({ version: '3.9.3', restppPort: 1, gsPort: 1 });
    try {
      const err = await expectKind(conn.createSecret('a'), 'bad_request');
      expect(err.message).toMatch(/graphname/);
    } finally {
      await conn.close();
    }
  });
});
