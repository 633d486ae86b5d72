import { parseArgs } from 'node:util';
import { usageError } from './cli-error.js';
import { COMMANDS, GROUPS, type CommandSpec } from './command-specs.js';
import { commandHelp, groupHelp, topHelp } from './help.js';

export type OptionValues = Record<string, string | boolean | undefined>;

export type CommandLine =
  | { kind: 'help'; text: string }
  | { kind: 'version' }
  | { kind: 'run'; spec: CommandSpec; values: OptionValues; positionals: string[] };

const isHelp = (arg: string | undefined): boolean => arg === '--help' || arg === '-h' || arg === 'help';

/** Finds the command named by the leading words of argv; usage errors carry the help to show. */
export function parseCommandLine(argv: readonly string[]): CommandLine {
  const [first, second] = argv;
  if (first === undefined) throw usageError(`a command is required\n\n${topHelp()}`);
  if (isHelp(first)) return { kind: 'help', text: topHelp() };
  // Only in first place: after a command, --version is TigerGraph's version (`tgbff sim --version 4.1.0`).
  if (first === '--version' || first === '-V') return { kind: 'version' };

  if ((GROUPS as readonly string[]).includes(first)) {
    if (isHelp(second)) return { kind: 'help', text: groupHelp(first) };
    const spec = COMMANDS.find((s) => s.name === `${first} ${second}`);
    if (!spec) {
      const what = second === undefined ? 'a subcommand is required' : `unknown command '${first} ${second}'`;
      throw usageError(`${what}\n\n${groupHelp(first)}`);
    }
    return parseOptions(spec, argv.slice(2));
  }

  const spec = COMMANDS.find((s) => s.name === first);
  if (!spec) throw usageError(`unknown command '${first}'; run 'tgbff --help' for the list`);
  if (spec.passthrough) {
    const rest = argv.slice(1);
    if (isHelp(rest[0])) return { kind: 'help', text: commandHelp(spec) };
    return { kind: 'run', spec, values: {}, positionals: rest };
  }
  return parseOptions(spec, argv.slice(1));
}

/**
 * node:util parseArgs in non-strict mode with tokens, so that every mistake gets a message naming
 * the command and the option rather than node's generic wording.
 */
function parseOptions(spec: CommandSpec, args: readonly string[]): CommandLine {
  const options = Object.fromEntries(Object.entries(spec.options).map(([name, o]) => [name, { type: o.type }]));
  const { tokens } = parseArgs({ args: [...args], options, strict: false, allowPositionals: true, tokens: true });
  const where = `for 'tgbff ${spec.name}'; see 'tgbff ${spec.name} --help'`;
  const values: OptionValues = {};
  const positionals: string[] = [];

  for (const token of tokens) {
    if (token.kind === 'positional') {
      positionals.push(token.value);
      continue;
    }
    if (token.kind !== 'option') continue;
    if (token.name === 'h' || token.name === 'help') return { kind: 'help', text: commandHelp(spec) };
    const option = spec.options[token.name];
    if (!option) {
      const hint = token.name === 'password' ? ' (passwords are never taken from the command line)' : '';
      throw usageError(`unknown option ${token.rawName}${hint} ${where}`);
    }
    if (option.type === 'boolean') {
      if (token.inlineValue) throw usageError(`option --${token.name} takes no value ${where}`);
      values[token.name] = true;
    } else {
      const value = token.value;
      // A value that looks like an option is almost always a forgotten argument.
      if (value === undefined || value === '' || (!token.inlineValue && value.startsWith('-'))) {
        throw usageError(`option --${token.name} needs a value ${where}`);
      }
      values[token.name] = value;
    }
  }

  const missing = Object.entries(spec.options).find(([name, o]) => o.required && values[name] === undefined);
  if (missing) throw usageError(`option --${missing[0]} is required ${where}`);
  const range = spec.positionals;
  if (!range && positionals.length > 0) throw usageError(`unexpected argument '${positionals[0]}' ${where}`);
  if (range && positionals.length < range.min)
    throw usageError(`at least ${range.min} ${range.name} is required ${where}`);
  if (range?.max !== undefined && positionals.length > range.max) throw usageError(`too many arguments ${where}`);
  return { kind: 'run', spec, values, positionals };
}

/** A positive whole number from a flag or env value, or a usage error naming where it came from. */
export function positiveInt(raw: string | undefined, name: string): number | undefined {
  if (raw === undefined) return undefined;
  if (!/^\d+$/.test(raw) || Number(raw) <= 0 || !Number.isSafeInteger(Number(raw))) {
    throw usageError(`${name} must be a positive whole number, got '${raw}'`);
  }
  return Number(raw);
}
