import { parseCommandLine } from '../../../src/cli/args.js';
import { CliError, ExitCode } from '../../../src/cli/cli-error.js';
import { COMMANDS } from '../../../src/cli/command-specs.js';

function usageFailure(argv: string[]): CliError {
  try {
    parseCommandLine(argv);
  } catch (err) {
    if (err instanceof CliError) return err;
    throw err;
  }
  throw new Error(`expected a usage error for ${argv.join(' ')}`);
}

describe('tgbff argument parsing', () => {
  it('when a command has options and positionals, then they are returned by name', () => {
    const line = parseCommandLine(['secrets', 'drop', 'a', '--strict', 'b', '--graph=g', '--user', 'u']);
    expect(line).toMatchObject({ kind: 'run', spec: { name: 'secrets drop' }, positionals: ['a', 'b'] });
    expect(line.kind === 'run' && line.values).toEqual({ strict: true, graph: 'g', user: 'u' });
  });

  it.each(COMMANDS.map((c) => c.name))('when "%s --help" is given, then its own help is returned', (name) => {
    const line = parseCommandLine([...name.split(' '), '--help']);
    expect(line.kind).toBe('help');
    expect(line.kind === 'help' && line.text).toContain(`Usage: tgbff ${name}`);
  });

  it('when only a group and --help are given, then the group help lists its commands', () => {
    const line = parseCommandLine(['token', '-h']);
    expect(line.kind === 'help' && line.text).toMatch(/token get[\s\S]*token refresh[\s\S]*token delete/);
  });

  it('when no command is given, then it is a usage error that shows the command list', () => {
    const err = usageFailure([]);
    expect(err.exitCode).toBe(ExitCode.usage);
    expect(err.message).toContain('secrets create');
  });

  it('when the command or subcommand is unknown, then the usage error names it', () => {
    expect(usageFailure(['frobnicate']).message).toContain("unknown command 'frobnicate'");
    expect(usageFailure(['secrets', 'rotate']).message).toContain("unknown command 'secrets rotate'");
    expect(usageFailure(['secrets']).message).toContain('a subcommand is required');
  });

  it('when --password is given, then it is refused with the reason', () => {
    const err = usageFailure(['secrets', 'list', '--password', 'hunter2']);
    expect(err.message).toContain('passwords are never taken from the command line');
    expect(err.message).not.toContain('hunter2');
  });

  it('when an unknown option is given, then the error names the option and the command', () => {
    expect(usageFailure(['token', 'get', '--secret', 'x']).message).toMatch(
      /unknown option --secret for 'tgbff token get'/,
    );
  });

  it('when a value option has no value or swallows the next option, then it says a value is needed', () => {
    expect(usageFailure(['secrets', 'create', '--alias']).message).toContain('option --alias needs a value');
    expect(usageFailure(['secrets', 'create', '--alias', '--json']).message).toContain('option --alias needs a value');
  });

  it('when a flag is given a value, then it is refused', () => {
    expect(usageFailure(['secrets', 'list', '--json=yes']).message).toContain('option --json takes no value');
  });

  it('when a required option or positional is missing, then it is a usage error', () => {
    expect(usageFailure(['secrets', 'drop', '--strict']).message).toContain('at least 1 ALIAS is required');
    expect(usageFailure(['secrets', 'list', 'extra']).message).toContain("unexpected argument 'extra'");
  });

  it('when sim is given flags, then they pass through untouched for the simulator to parse', () => {
    const line = parseCommandLine(['sim', '--version', '4.1.0', '--bogus']);
    expect(line).toMatchObject({ kind: 'run', spec: { name: 'sim' }, positionals: ['--version', '4.1.0', '--bogus'] });
  });
});
