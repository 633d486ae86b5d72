/** What each tgbff command accepts; args.ts parses against these and help.ts renders them. */
export interface OptionSpec {
  type: 'string' | 'boolean';
  /** Placeholder shown in help, e.g. "URL". */
  value?: string;
  description: string;
  required?: boolean;
}

export interface CommandSpec {
  /** Words after `tgbff`, e.g. "secrets list". */
  name: string;
  summary: string;
  usage: string;
  details?: string;
  options: Record<string, OptionSpec>;
  positionals?: { name: string; min: number; max?: number };
  /** Everything after the command goes, unparsed, to the delegate (the simulator's own CLI). */
  passthrough?: boolean;
}

const help: Record<string, OptionSpec> = {
  help: { type: 'boolean', description: 'show this help and exit' },
};

const output: Record<string, OptionSpec> = {
  json: { type: 'boolean', description: 'print one JSON document for scripts (errors too, on stderr)' },
  ...help,
};

const connection: Record<string, OptionSpec> = {
  'gsql-url': {
    type: 'string',
    value: 'URL',
    description: 'admin server (env TG_GSQL_URL; default http://127.0.0.1:14240)',
  },
  'restpp-url': {
    type: 'string',
    value: 'URL',
    description: 'data server (env TG_RESTPP_URL; default http://127.0.0.1:9000)',
  },
  version: { type: 'string', value: 'X.Y.Z', description: 'TigerGraph version (env TG_VERSION; default 3.9.3)' },
  'timeout-ms': { type: 'string', value: 'MS', description: 'per-request deadline (env TG_TIMEOUT_MS; default 10000)' },
  dotenv: {
    type: 'string',
    value: 'FILE',
    description: 'read settings from this .env file first (no .env is read otherwise)',
  },
  verbose: {
    type: 'boolean',
    description: 'say which server and which credential source are used (never the credential)',
  },
};

// Secrets belong to a graph on 3.x; tokens follow from their secret, so only secrets commands take it.
const admin: Record<string, OptionSpec> = {
  graph: { type: 'string', value: 'NAME', description: 'graph (env TG_GRAPH; default social)' },
  user: {
    type: 'string',
    value: 'NAME',
    description: 'admin user; the password comes from TG_PASSWORD, netrc, the config file or a prompt',
  },
  'netrc-default': {
    type: 'boolean',
    description:
      "let netrc's `default` entry serve this server (env TGBFF_NETRC_DEFAULT=1); off: only its own `machine` entry",
  },
};

const lifetime: OptionSpec = {
  type: 'string',
  value: 'SECONDS',
  description: 'token lifetime (default: server default, 2592000 on 3.x)',
};
const token: OptionSpec = {
  type: 'string',
  value: 'TOKEN',
  description: 'the token; else TG_TOKEN (which, unlike a flag, `ps` does not show)',
};
const strict: OptionSpec = { type: 'boolean', description: 'exit 4 when it does not exist instead of ignoring it' };

const secretInput =
  'The secret is read from TG_SECRET, else from standard input (one line), else asked for\n' +
  'without echo when standard input is a terminal. It is never taken from the command line.';
const tokenInput =
  `${secretInput}\nThe token is --token, else TG_TOKEN: prefer TG_TOKEN on shared hosts, since other\n` +
  'local users can read a command line (ps, /proc) while it runs.';

// The person whose sessions: the operator is --admin, since --user names the principal here.
const principal: Record<string, OptionSpec> = {
  user: { type: 'string', value: 'NAME', description: 'a TigerGraph user (the principal of password logins)' },
  subject: {
    type: 'string',
    value: 'SUB',
    description: 'an IdP subject (single sign-on, with or without the credential map)',
  },
  secret: {
    type: 'boolean',
    description: 'the principal of a secret: the secret from TG_SECRET, standard input or a prompt, never a flag',
  },
  alias: {
    type: 'string',
    value: 'ALIAS',
    description: "a secret by its alias (the operator's own, or --owner's on 4.1+), looked up on the admin server",
  },
  owner: {
    type: 'string',
    value: 'NAME',
    description: "with --alias: the secret's owner (4.1+; default the operator)",
  },
  'all-matching': {
    type: 'boolean',
    description: 'with --alias on 3.x: end the sessions of every secret whose masked value matches (list them first)',
  },
};
const operator: Record<string, OptionSpec> = {
  service: { type: 'string', value: 'URL', description: 'the running tigergraph-bff (env TGBFF_URL)' },
  admin: {
    type: 'string',
    value: 'NAME',
    description:
      'operator: a TigerGraph user SESSION_OPERATORS names; the password from TG_PASSWORD, netrc, the config file or a prompt',
  },
  'netrc-default': admin['netrc-default']!,
  'timeout-ms': connection['timeout-ms']!,
  dotenv: connection.dotenv!,
  verbose: connection.verbose!,
};
const sessionsDetails =
  'Calls POST /admin/sessions/list or /end on the service (ADMIN_ROUTES=true) as the operator, whose TigerGraph\n' +
  'credentials the service checks with the admin server. Every end goes through the session lifecycle: token\n' +
  'deleted upstream, caches of every instance invalidated, audited as session.ended reason operator.\n' +
  'A secret login is named by the secret itself (--secret) or by its alias (--alias): on 4.1+ the service reads\n' +
  'the secret from the admin server and matches it exactly; on 3.x TigerGraph shows only a masked value (first\n' +
  'and last 3 characters), matched by a keyed fingerprint, so two secrets can share it: list first; end refuses\n' +
  'sessions of more than one secret (exit 1, alias_ambiguous) unless --all-matching.';

export const COMMANDS: readonly CommandSpec[] = [
  {
    name: 'secrets list',
    summary: 'list secrets of the graph, masked (SHOW SECRET)',
    usage: 'tgbff secrets list [options]',
    options: { ...admin, ...connection, ...output },
  },
  {
    name: 'secrets create',
    summary: 'create a secret and print it (the only time it is shown in full)',
    usage: 'tgbff secrets create [--alias ALIAS] [options]',
    details: 'Without --alias the server generates one (AUTO_GENERATED_ALIAS_…), printed with the secret.',
    options: {
      alias: { type: 'string', value: 'ALIAS', description: 'name of the new secret' },
      ...admin,
      ...connection,
      ...output,
    },
  },
  {
    name: 'secrets drop',
    summary: 'drop secrets by alias (unknown aliases are ignored unless --strict)',
    usage: 'tgbff secrets drop ALIAS [ALIAS…] [--strict] [options]',
    details: 'Dropping a secret also invalidates the tokens minted with it.',
    options: { strict, ...admin, ...connection, ...output },
    positionals: { name: 'ALIAS', min: 1 },
  },
  {
    name: 'token get',
    summary: 'mint a token from a secret',
    usage: 'tgbff token get [--lifetime SECONDS] [options]',
    details: secretInput,
    options: { lifetime, ...connection, ...output },
  },
  {
    name: 'token refresh',
    summary: 'extend a token: new expiry = now + lifetime',
    usage: 'tgbff token refresh [--token TOKEN] [--lifetime SECONDS] [options]',
    details: tokenInput,
    options: { token, lifetime, ...connection, ...output },
  },
  {
    name: 'token delete',
    summary: 'delete a token (a missing token is ignored unless --strict)',
    usage: 'tgbff token delete [--token TOKEN] [--strict] [options]',
    details: tokenInput,
    options: { token, strict, ...connection, ...output },
  },
  {
    name: 'sessions list',
    summary: "list a person's live sessions through a running tigergraph-bff (/admin/sessions)",
    usage:
      'tgbff sessions list (--user NAME | --subject SUB | --secret | --alias ALIAS [--owner NAME]) --service URL [options]',
    details: sessionsDetails,
    options: { ...principal, ...operator, ...output },
  },
  {
    name: 'sessions end',
    summary: 'end every session of a person (and their logins in flight) through a running tigergraph-bff',
    usage:
      'tgbff sessions end (--user NAME | --subject SUB | --secret | --alias ALIAS [--owner NAME] [--all-matching]) --service URL [options]',
    details: sessionsDetails,
    options: { ...principal, ...operator, ...output },
  },
  {
    name: 'codegen',
    summary: 'write a TypeScript module with one typed function per installed query of a graph',
    usage: 'tgbff codegen --graph NAME [--out FILE] [--service URL | --token TOKEN] [options]',
    details:
      'Reads GET /endpoints/<graph>?dynamic=true: through a running tigergraph-bff (--service URL; logs in with\n' +
      'the secret from TG_SECRET, standard input or a prompt, and logs out after), or straight from the data server\n' +
      '(--restpp-url or TG_RESTPP_URL) with a token (--token or TG_TOKEN). The module imports @tigergraph-bff/browser.',
    options: {
      graph: {
        type: 'string',
        value: 'NAME',
        description: 'the graph whose installed queries to read',
        required: true,
      },
      out: { type: 'string', value: 'FILE', description: 'write the module here (default: standard output)' },
      service: { type: 'string', value: 'URL', description: 'a running tigergraph-bff to read the listing through' },
      async: {
        type: 'boolean',
        description: 'also a <query>Async function per query, started in Detached Mode (tgbff-codegen.json "async")',
      },
      token,
      ...connection,
      ...output,
    },
  },
  {
    name: 'sim',
    summary: 'start the TigerGraph simulator (flags go to the simulator)',
    usage: 'tgbff sim [simulator flags]',
    details: 'Runs until Ctrl-C (SIGINT) or SIGTERM. Example: tgbff sim --version 4.1.0 --gsql-port 0 --restpp-port 0',
    options: help,
    passthrough: true,
  },
  {
    name: 'serve',
    summary: 'start the service (configured by environment, see .env.example)',
    usage: 'tgbff serve',
    options: help,
  },
];

export const GROUPS = ['secrets', 'token', 'sessions'] as const;
