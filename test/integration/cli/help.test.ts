import { COMMANDS } from '../../../src/cli/command-specs.js';
import { jsonError, makeHome, runCli } from './cli-harness.js';

let home: Awaited<ReturnType<typeof makeHome>>;
beforeAll(async () => {
  home = await makeHome();
});
afterAll(() => home.remove());

describe('tgbff help and usage errors, as a child process', () => {
  it.each(COMMANDS.map((c) => c.name))(
    'when "tgbff %s --help" runs, then it prints that command\'s usage and exits 0',
    async (name) => {
      const r = await runCli([...name.split(' '), '--help'], { home: home.dir });
      expect(r.code).toBe(0);
      expect(r.stdout.startsWith(`Usage: tgbff ${name}`)).toBe(true);
      expect(r.stderr).toBe('');
    },
  );

  it('when "tgbff --help" runs, then every command is listed with the exit codes', async () => {
    const r = await runCli(['--help'], { home: home.dir });
    expect(r.code).toBe(0);
    for (const c of COMMANDS) expect(r.stdout).toContain(`  ${c.name} `);
    expect(r.stdout).toContain('3 bad credentials');
  });

  it('when "tgbff sim --help" runs, then the simulator\'s own flags are shown too', async () => {
    const r = await runCli(['sim', '--help'], { home: home.dir });
    expect(r.stdout).toContain('--auth-disabled');
    expect(r.stdout).toContain('--restpp-port');
  });

  it('when no command is given, then exit 2 with the command list on stderr', async () => {
    const r = await runCli([], { home: home.dir });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('a command is required');
    expect(r.stderr).toContain('secrets list');
  });

  it('when the command is unknown, then exit 2 names it', async () => {
    const r = await runCli(['secret', 'list'], { home: home.dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("unknown command 'secret'");
  });

  it('when a usage error happens under --json, then stderr is the JSON error document', async () => {
    const r = await runCli(['secrets', 'list', '--json', '--password', 'hunter2'], { home: home.dir });
    expect(r.code).toBe(2);
    expect(jsonError(r)).toMatchObject({
      code: 'usage',
      message: expect.stringContaining('passwords are never taken from the command line'),
    });
    expect(r.stderr).not.toContain('hunter2');
  });
});
