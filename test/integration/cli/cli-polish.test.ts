import { createServer } from 'node:net';
import { once } from 'node:events';
import { startSimulator, type SimulatorHandle } from '../../../src/simulator/index.js';
import { jsonError, makeHome, runCli } from './cli-harness.js';

// Issue 30 item 7: the CLI's messages and exit codes, through dist/cli/main.js against the simulator.
let sims: Record<'3.9.3' | '4.1.0', SimulatorHandle>;
let home: Awaited<ReturnType<typeof makeHome>>;
const envOf = (s: SimulatorHandle) => ({
  TG_PASSWORD: 'tigergraph',
  TG_GSQL_URL: s.gsqlUrl,
  TG_RESTPP_URL: s.restppUrl,
  TG_VERSION: s.version,
});
const GRAPH_NOT_FOUND = 7;

beforeAll(async () => {
  home = await makeHome();
  sims = { '3.9.3': await startSimulator(), '4.1.0': await startSimulator({ version: '4.1.0' }) };
  for (const sim of Object.values(sims)) sim.createSecret({ user: 'tigergraph', graph: 'social', alias: 'on_social' });
});
afterAll(async () => {
  await Promise.all([...Object.values(sims).map((s) => s.close()), home.remove()]);
});

describe.each(['3.9.3', '4.1.0'] as const)('tgbff against TigerGraph %s, a graph that does not exist', (version) => {
  const secrets = (args: string[]) =>
    runCli(['secrets', ...args, '--graph', 'nosuch', '--user', 'tigergraph', '--json'], {
      home: home.dir,
      env: envOf(sims[version]),
    });

  it('when secrets are listed for it, then exit 7 graph_not_found naming it, and no secret of another graph is shown', async () => {
    // The set-up holds: the same command on the real graph lists the secret.
    const ok = await runCli(['secrets', 'list', '--graph', 'social', '--user', 'tigergraph', '--json'], {
      home: home.dir,
      env: envOf(sims[version]),
    });
    expect(ok.code).toBe(0);
    expect(ok.stdout).toContain('on_social');

    const r = await secrets(['list']);
    expect(r.code).toBe(GRAPH_NOT_FOUND);
    expect(r.stdout).toBe('');
    expect(jsonError(r)).toMatchObject({ code: 'graph_not_found' });
    expect(jsonError(r).message).toContain("graph 'nosuch' does not exist");
    expect(jsonError(r).message).toContain('--graph / TG_GRAPH');
  });

  it('when a secret is created on it, then exit 7 and nothing is created', async () => {
    const before = (
      await runCli(['secrets', 'list', '--user', 'tigergraph', '--json'], {
        home: home.dir,
        env: envOf(sims[version]),
      })
    ).stdout;
    const r = await secrets(['create', '--alias', 'stray']);
    expect(r.code).toBe(GRAPH_NOT_FOUND);
    expect(jsonError(r).code).toBe('graph_not_found');
    const after = (
      await runCli(['secrets', 'list', '--user', 'tigergraph', '--json'], {
        home: home.dir,
        env: envOf(sims[version]),
      })
    ).stdout;
    expect(after).toBe(before);
    expect(after).not.toContain('stray');
  });

  it('when a secret is dropped there, then exit 7 and the secret of the real graph stays', async () => {
    const r = await secrets(['drop', 'on_social']);
    expect(r.code).toBe(GRAPH_NOT_FOUND);
    const list = await runCli(['secrets', 'list', '--user', 'tigergraph', '--json'], {
      home: home.dir,
      env: envOf(sims[version]),
    });
    expect(list.stdout).toContain('on_social');
  });
});

describe('tgbff messages', () => {
  it('when TG_VERSION is not a version, then exit 2 and the message names TG_VERSION and the value', async () => {
    const r = await runCli(['token', 'get', '--json'], {
      home: home.dir,
      env: { ...envOf(sims['3.9.3']), TG_VERSION: 'banana' },
      input: 'some-secret\n',
    });
    expect(r.code).toBe(2);
    expect(jsonError(r).message).toBe("TG_VERSION must be a TigerGraph version like 3.9.3 or 4.1.0, got 'banana'");
  });

  it('when TG_PASSWORD is set without --user, then exit 2 with one readable sentence per point, no password', async () => {
    const r = await runCli(['secrets', 'list'], {
      home: home.dir,
      env: { TG_GSQL_URL: sims['3.9.3'].gsqlUrl, TG_PASSWORD: 'Sekrit-Value-9' },
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /^tgbff: no admin credentials found\. TG_PASSWORD is set, but it needs --user NAME\. Give them one of these ways: --user NAME with TG_PASSWORD, a netrc entry for machine 127\.0\.0\.1, a config file \(mode 600\) for 127\.0\.0\.1, a terminal, to be asked\n$/,
    );
    expect(r.stderr).not.toContain('Sekrit-Value-9');
  });

  it('when --version or -V is the first argument, then the release is printed', async () => {
    const [long, short] = await Promise.all([
      runCli(['--version'], { home: home.dir }),
      runCli(['-V'], { home: home.dir }),
    ]);
    expect(long).toMatchObject({ code: 0, stdout: expect.stringMatching(/^tgbff \d+\.\d+\.\d+\n$/) });
    expect(short.stdout).toBe(long.stdout);
  });

  it('when codegen --service is plain http to another host, then exit 2 before anything is sent', async () => {
    // 0.0.0.0 reaches this machine on Linux but is not a loopback name: a CLI that sent the login would
    // connect to this listener.
    const connections: string[] = [];
    const listener = createServer((socket) => {
      connections.push('connected');
      socket.destroy();
    }).listen(0, '0.0.0.0');
    await once(listener, 'listening');
    try {
      const port = (listener.address() as { port: number }).port;
      const r = await runCli(['codegen', '--graph', 'social', '--service', `http://0.0.0.0:${port}`, '--json'], {
        home: home.dir,
        input: 'Sekrit-Value-9\n',
      });
      expect(r.code).toBe(2);
      expect(jsonError(r).message).toBe(
        `--service http://0.0.0.0:${port} is plain http to another machine: the secret would cross the network in clear; use https`,
      );
      expect(connections).toEqual([]);
      expect(r.stderr + r.stdout).not.toContain('Sekrit-Value-9');
    } finally {
      listener.close();
    }
  });
});
