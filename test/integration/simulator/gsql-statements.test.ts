import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startSimulator, type SimulatorHandle } from '../../../src/simulator/index.js';
import { basic, call } from './sim-http.js';
import { manualClock } from '../../helpers/clock.js';

// pyTigerGraph sends the GSQL text quote_plus-encoded as the whole body.
const quotePlus = (text: string) => encodeURIComponent(text).replace(/%20/g, '+');

describe('simulator GSQL text statements (3.x /gsqlserver/gsql/file)', () => {
  const clock = manualClock(Date.UTC(2024, 0, 15, 12, 0, 0));
  let sim: SimulatorHandle;
  const admin = { authorization: basic('tigergraph', 'tigergraph') };
  const gsql = (text: string, headers: Record<string, string> = admin) =>
    call(`${sim.gsqlUrl}/gsqlserver/gsql/file`, { method: 'POST', body: quotePlus(text), headers });

  beforeAll(async () => {
    sim = await startSimulator({
      version: '3.9.3',
      now: clock.now,
      graphs: ['finance'],
      users: [{ name: 'reader', password: 'reader-pw', graphs: ['social'] }],
    });
  });
  afterAll(() => sim.close());

  it('when CREATE SECRET runs with an alias, then the text holds "The secret: <value>" and the secret works', async () => {
    const res = await gsql('USE GRAPH social\nCREATE SECRET first_one');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain/);
    const lines = res.text.split('\n');
    expect(lines[0]).toBe("Using graph 'social'");
    const value = /The secret: (\S+)/.exec(res.text)?.[1] ?? '';
    expect(value).toMatch(/^[a-z0-9]{32}$/);
    const token = await call(`${sim.restppUrl}/requesttoken`, {
      method: 'POST',
      body: JSON.stringify({ secret: value }),
    });
    expect(token.json.error).toBe(false);
  });

  it('when CREATE SECRET has no alias, then an AUTO_GENERATED_ALIAS_ with 7 characters is listed', async () => {
    await gsql('USE GRAPH social\nCREATE SECRET');
    const show = await gsql('USE GRAPH social\nSHOW SECRET');
    expect(show.text).toMatch(/- Alias: AUTO_GENERATED_ALIAS_[a-z0-9]{7}\n/);
  });

  it('when the alias exists, then the output says "already exists"', async () => {
    const res = await gsql('USE GRAPH social\nCREATE SECRET first_one');
    expect(res.text).toContain('already exists');
  });

  it('when SHOW SECRET runs, then secrets are masked 3+****+3 with live Token lines between Secret and Alias', async () => {
    const created = sim.createSecret({ alias: 'with_token' });
    const minted = await call(`${sim.restppUrl}/requesttoken`, {
      method: 'POST',
      body: JSON.stringify({ secret: created.value, lifetime: '3600' }),
    });
    const res = await gsql('USE GRAPH social\nSHOW SECRET');
    const masked = `${created.value.slice(0, 3)}****${created.value.slice(-3)}`;
    expect(res.text).toContain(
      `- Secret: ${masked}\n- Token: ${minted.json.token} expire at: 2024-01-15 13:00:00\n- Alias: with_token\n- GraphName: social\n`,
    );
    expect(res.text).not.toContain(created.value);
  });

  it('when DROP SECRET names a known and then an unknown alias, then the texts say success and failure', async () => {
    sim.createSecret({ alias: 'to_drop' });
    const ok = await gsql('USE GRAPH social\nDROP SECRET to_drop');
    expect(ok.text).toContain('Successfully dropped secrets');
    const again = await gsql('USE GRAPH social\nDROP SECRET to_drop');
    expect(again.status).toBe(200);
    expect(again.text).toContain('Failed to drop secrets');
  });

  it('when the password is wrong or missing, then 401', async () => {
    expect((await gsql('SHOW SECRET', { authorization: basic('tigergraph', 'nope') })).status).toBe(401);
    expect((await gsql('SHOW SECRET', {})).status).toBe(401);
  });

  it('when a user logs in as __GSQL__secret, then statements run as the secret owner on its graph', async () => {
    const secret = sim.createSecret({ user: 'reader', alias: 'reader_key' }).value;
    const res = await gsql('CREATE SECRET from_secret_login\nSHOW SECRET', {
      authorization: basic('__GSQL__secret', secret),
    });
    expect(res.text).toContain('The secret: ');
    expect(res.text).toContain('- Alias: reader_key');
    expect(res.text).toContain('- Alias: from_secret_login');
    expect(res.text).not.toContain('- Alias: first_one');
  });

  it('when a user without the graph uses it, then USE GRAPH fails and CREATE SECRET makes nothing', async () => {
    const reader = { authorization: basic('reader', 'reader-pw') };
    const res = await gsql('USE GRAPH finance\nCREATE SECRET sneaky', reader);
    expect(res.text).not.toContain('The secret:');
    expect(res.text).not.toContain("Using graph 'finance'");
    const superuser = await gsql('USE GRAPH finance\nCREATE SECRET fine');
    expect(superuser.text).toContain('The secret:');
  });

  it('when POST /gsql/v1/statements is used on 3.x, then 404 so clients fall back', async () => {
    const res = await call(`${sim.gsqlUrl}/gsql/v1/statements`, {
      method: 'POST',
      body: 'SHOW SECRET',
      headers: { ...admin, 'content-type': 'text/plain' },
    });
    expect(res.status).toBe(404);
  });
});

describe('simulator GSQL statements on 4.1', () => {
  it('when /gsql/v1/statements gets raw text, then it answers plain text and secrets need no graph', async () => {
    const sim = await startSimulator({ version: '4.1.0' });
    try {
      const res = await call(`${sim.gsqlUrl}/gsql/v1/statements`, {
        method: 'POST',
        body: 'CREATE SECRET v4_secret\nSHOW SECRET',
        headers: { authorization: basic('tigergraph', 'tigergraph'), 'content-type': 'text/plain' },
      });
      expect(res.status).toBe(200);
      expect(res.text).toMatch(/The secret: [a-z0-9]{32} /);
      expect(res.text).toContain('- Alias: v4_secret');
      expect(res.text).not.toContain('- GraphName:');
      const file = await call(`${sim.gsqlUrl}/gsqlserver/gsql/file`, {
        method: 'POST',
        body: 'SHOW+SECRET',
        headers: { authorization: basic('tigergraph', 'tigergraph') },
      });
      expect(file.text).toContain('- Alias: v4_secret');
    } finally {
      await sim.close();
    }
  });
});
