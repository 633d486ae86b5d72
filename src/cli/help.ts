import { SIM_USAGE } from '../simulator/cli-args.js';
import { COMMANDS, type CommandSpec } from './command-specs.js';

const EXIT_CODES =
  'Exit codes: 0 ok, 1 other failure, 2 usage or local setup, 3 bad credentials, 4 not found (--strict),\n' +
  '5 authentication disabled on the data server, 6 server unreachable or timed out,\n' +
  '7 the graph does not exist (or the user may not use it).';

const CREDENTIALS =
  'Admin credentials, first found wins: --user with TG_PASSWORD; a netrc file (NETRC or ~/.netrc,\n' +
  'matched by host); the config file (TGBFF_CONFIG or ~/.config/tgbff/config.json, mode 600);\n' +
  'a prompt without echo when standard input is a terminal. There is no --password flag.';

function commandList(specs: readonly CommandSpec[]): string {
  const width = Math.max(...specs.map((s) => s.name.length));
  return specs.map((s) => `  ${s.name.padEnd(width)}  ${s.summary}`).join('\n');
}

export function topHelp(): string {
  return [
    'tgbff: admin tool for tigergraph-bff (secrets, tokens, simulator, service)',
    '',
    'Usage: tgbff <command> [options]',
    '',
    'Commands:',
    commandList(COMMANDS),
    '',
    "Run 'tgbff <command> --help' for a command's options; 'tgbff --version' (or -V) prints the release.",
    '',
    CREDENTIALS,
    '',
    EXIT_CODES,
  ].join('\n');
}

export function groupHelp(group: string): string {
  const specs = COMMANDS.filter((s) => s.name.startsWith(`${group} `));
  return [`Usage: tgbff ${group} <command> [options]`, '', 'Commands:', commandList(specs), '', EXIT_CODES].join('\n');
}

export function commandHelp(spec: CommandSpec): string {
  const rows = Object.entries(spec.options).map(([name, o]) => [
    `--${name}${o.value ? ` ${o.value}` : ''}`,
    o.description,
  ]);
  const width = Math.max(...rows.map(([flag]) => flag!.length));
  const lines = [`Usage: ${spec.usage}`, '', `${spec.summary[0]!.toUpperCase()}${spec.summary.slice(1)}.`];
  if (spec.details) lines.push('', spec.details);
  lines.push('', 'Options:', ...rows.map(([flag, text]) => `  ${flag!.padEnd(width)}  ${text}`));
  if ('user' in spec.options) lines.push('', CREDENTIALS);
  if (spec.name === 'sim') lines.push('', "The simulator's flags, as it describes them:", '', SIM_USAGE.trimEnd());
  if (spec.name !== 'sim' && spec.name !== 'serve') lines.push('', EXIT_CODES);
  return lines.join('\n');
}
