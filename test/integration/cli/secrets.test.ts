import { createServer, type Server, type Socket } from 'node:net';
import { startSimulator, type SimulatorHandle } from '../../../src/simulator/index.js';
import { maskSecret } from '../../../packages/client/src/errors.js';
import { json, jsonError, makeHome, runCli } from './cli-harness.js';

let sim: SimulatorHandle;
let sim41: SimulatorHandle;
let home: Awaited<ReturnType<typeof makeHome>>;
const admin = { TG_PASSWORD: 'tigergraph' };
const envOf = (s: SimulatorHandle, version = '3.9.3') => ({
  ...admin,
  TG_GSQL_URL: s.gsqlUrl,
  TG_RESTPP_URL: s.restppUrl,
  TG_VERSION: version,
});
const secrets = (args: string[], env: Record<string, string> = envOf(sim)) =>
  runCli(['secrets', ...args, '--user', 'tigergraph'], { home: home.dir, env });
type Listed = { alias: string; secret: string; graph: string };

beforeAll(async () => {
  home = await makeHome();
  sim = await startSimulator();
  sim41 = await startSimulator({ version: '4.1.0' });
});
afterAll(async () => {
  await Promise.all([sim.close(), sim41.close(), home.remove()]);
});

describe('tgbff secrets, as a child process against the simulator', () => {
  it('when secrets are listed, then each shows masked with its alias and graph, never in full', async () => {
    const { value } = sim.createSecret({ alias: 'listed_one', graph: 'social' });
    const human = await secrets(['list']);
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(
      new RegExp(
        `^ALIAS\\s+SECRET\\s+GRAPH$[\\s\\S]*^listed_one\\s+${maskSecret(value).replace(/\*/g, '\\*')}\\s+social$`,
        'm',
      ),
    );
    const doc = await secrets(['list', '--json']);
    expect((json(doc).secrets as Listed[]).find((s) => s.alias === 'listed_one')).toEqual({
      alias: 'listed_one',
      secret: maskSecret(value),
      graph: 'social',
    });
    expect(human.stdout + doc.stdout).not.toContain(value);
  });

  it('when a 4.1 server answers the listing in clear text, then the CLI still prints only masks', async () => {
    const { value } = sim41.createSecret({ alias: 'clear_one' });
    const r = await secrets(['list', '--json'], envOf(sim41, '4.1.0'));
    expect(r.code).toBe(0);
    expect((json(r).secrets as Listed[]).find((s) => s.alias === 'clear_one')?.secret).toBe(maskSecret(value));
    expect(r.stdout).not.toContain(value);
  });

  it('when a secret is created with --alias, then the full secret is printed once and the server holds it under that alias', async () => {
    const r = await secrets(['create', '--alias', 'made_here']);
    expect(r.code).toBe(0);
    const [, value] = /^secret: (\S+)$/m.exec(r.stdout) ?? [];
    expect(r.stdout).not.toContain('alias:');
    expect(r.stderr).toContain('Store the secret now');
    const listed = json(await secrets(['list', '--json'])).secrets as Listed[];
    expect(listed.find((s) => s.alias === 'made_here')?.secret).toBe(maskSecret(value!));
  });

  it('when a secret is created without an alias, then the generated alias is printed with it', async () => {
    const human = await secrets(['create']);
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/^alias: {2}AUTO_GENERATED_ALIAS_[A-Za-z0-9]{7}\nsecret: \S+\n$/);
    const doc = json(await secrets(['create', '--json']));
    expect(doc).toMatchObject({
      alias: expect.stringMatching(/^AUTO_GENERATED_ALIAS_/),
      graph: 'social',
      generatedAlias: true,
    });
    const listed = json(await secrets(['list', '--json'])).secrets as Listed[];
    expect(listed.find((s) => s.alias === doc.alias)?.secret).toBe(maskSecret(doc.secret as string));
  });

  it('when a 4.1 server creates and drops a secret, then the same commands work over its REST API', async () => {
    const env = envOf(sim41, '4.1.0');
    const made = await secrets(['create', '--alias', 'rest_made', '--json'], env);
    expect(made.code).toBe(0);
    expect(json(made)).toMatchObject({ alias: 'rest_made', secret: expect.stringMatching(/^\S{8,}$/) });
    const dropped = await secrets(['drop', 'rest_made', '--strict', '--json'], env);
    expect(dropped.code).toBe(0);
    expect(json(dropped)).toMatchObject({ dropped: ['rest_made'], notFound: [] });
  });

  it('when the alias already exists, then exit 1 says to choose another', async () => {
    sim.createSecret({ alias: 'taken', graph: 'social' });
    const r = await secrets(['create', '--alias', 'taken', '--json']);
    expect(r.code).toBe(1);
    expect(jsonError(r)).toMatchObject({
      code: 'secret_exists',
      message: expect.stringContaining('choose another --alias'),
    });
    expect(r.stdout).toBe('');
  });

  it('when the alias is not an identifier, then exit 2 before any GSQL is sent', async () => {
    sim.resetCounts();
    const r = await secrets(['create', '--alias', 'no;DROP', '--json']);
    expect(r.code).toBe(2);
    expect(jsonError(r).code).toBe('bad_request');
    expect(sim.counts()).toEqual({});
  });

  it('when the graph does not exist, then create exits 7 and the message points at --graph', async () => {
    const r = await secrets(['create', '--graph', 'no_such_graph', '--json']);
    expect(r.code).toBe(7);
    expect(jsonError(r)).toMatchObject({ code: 'graph_not_found' });
    expect(jsonError(r).message).toContain("graph 'no_such_graph' does not exist");
    expect(jsonError(r).message).toContain('--graph / TG_GRAPH');
  });

  it('when known and unknown aliases are dropped without --strict, then the known go and the unknown are reported, exit 0', async () => {
    sim.createSecret({ alias: 'drop_a', graph: 'social' });
    sim.createSecret({ alias: 'drop_b', graph: 'social' });
    const r = await secrets(['drop', 'drop_a', 'ghost', 'drop_b', '--json']);
    expect(r.code).toBe(0);
    expect(json(r)).toEqual({ graph: 'social', dropped: ['drop_a', 'drop_b'], notFound: ['ghost'] });
    const listed = (json(await secrets(['list', '--json'])).secrets as Listed[]).map((s) => s.alias);
    expect(listed).not.toEqual(expect.arrayContaining(['drop_a']));
    expect(listed).not.toEqual(expect.arrayContaining(['drop_b']));
  });

  it('when an unknown alias is dropped with --strict, then exit 4 names it and the known ones are still dropped', async () => {
    sim.createSecret({ alias: 'strict_a', graph: 'social' });
    const r = await secrets(['drop', 'ghost_one', 'strict_a', '--strict', '--json']);
    expect(r.code).toBe(4);
    expect(json(r)).toEqual({ graph: 'social', dropped: ['strict_a'], notFound: ['ghost_one'] });
    expect(jsonError(r)).toEqual({ code: 'not_found', message: 'no secret with alias ghost_one on graph social' });
    const human = await secrets(['drop', 'ghost_two', '--strict']);
    expect(human.code).toBe(4);
    expect(human.stderr).toBe('tgbff: no secret with alias ghost_two on graph social\n');
  });

  it('when the admin server is not listening, then exit 6 names the URL and the flag to fix it', async () => {
    const r = await secrets(['list'], { ...admin, TG_GSQL_URL: 'http://127.0.0.1:1' });
    expect(r.code).toBe(6);
    expect(r.stderr).toContain('cannot reach the admin server at http://127.0.0.1:1');
    expect(r.stderr).toContain('--gsql-url');
  });

  it('when the admin server accepts but never answers, then exit 6 after --timeout-ms', async () => {
    const sockets = new Set<Socket>();
    const silent: Server = createServer((s) => sockets.add(s));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const port = (silent.address() as { port: number }).port;
    try {
      const r = await secrets(['list', '--json', '--timeout-ms', '300', '--gsql-url', `http://127.0.0.1:${port}`]);
      expect(r.code).toBe(6);
      expect(jsonError(r)).toMatchObject({
        code: 'timeout',
        message: expect.stringContaining('did not answer within 300 ms'),
      });
    } finally {
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  });
});
