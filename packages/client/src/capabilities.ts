import { compareVersions, parseVersion, type Version } from './version.js';
import type { WireEra } from './types.js';

/**
 * What a TigerGraph version does on the wire, in one place: the client, the config rules, the CLI and the
 * admin parts ask this module and never compare versions themselves. The facts and their public sources
 * are in docs/client-library.md ("What each TigerGraph version expects"), whose table
 * test/unit/tigergraph/capabilities.test.ts keeps equal to `renderVersionTable()`. The simulator keeps its
 * own copy on purpose (src/simulator/version.ts), as an independent check of this one.
 */
export interface Capabilities {
  version: Version;
  /** ≤3.4 query strings, 3.5–4.0 JSON bodies on /requesttoken, 4.1+ JWTs from the admin server. */
  era: WireEra;
  /** Where tokens are asked for: the data server's `/requesttoken`, or the admin server's `/gsql/v1/tokens`. */
  tokenEndpoint: 'restpp' | 'gsql';
  /** Tokens by username/password (Basic auth plus a graph): 3.5+. */
  passwordTokens: boolean;
  /** 3.5–4.0 put a username/password token in `results.token`; 4.1+ at the top level. */
  passwordTokenNested: boolean;
  /** A graph named beside a secret: not sendable (≤3.4), checked against the secret's (3.5–4.0), scopes the token (4.1+). */
  graphWithSecret: 'none' | 'checked' | 'scopes';
  /** PUT refreshes a token in place (new expiry = now + lifetime); 4.1+ has none: a new token is minted. */
  refreshOnWire: boolean;
  /** A 32-character opaque token, or a JWT. */
  tokenFormat: 'opaque' | 'jwt';
  /** `expiration` in a token answer: epoch seconds, or a date string such as "Wed Jul 10 06:12:47 UTC 2024". */
  expiration: 'epoch' | 'date';
  /** 3.6+ may leave `expiration` out of a token answer (the lifetime asked for then applies from now). */
  expirationMayBeOmitted: boolean;
  /** Server default lifetime when none is asked for, in seconds: 30 days (3.x), 7 days (4.1+ JWTs). */
  defaultLifetimeSec: number;
  /** RESTPP verifies JWTs an IdP signed (`Security.JWT.*`): 3.10+. */
  externalJwt: boolean;
  /** The data API's base: port 9000, or the admin port's `/restpp` prefix (4.1+, port 9000 gone). */
  restppUnderAdmin: boolean;
  /** How `/requesttoken` or `/gsql/v1/tokens` refuse: HTTP 200 with `"error": true`, or an HTTP status. */
  tokenRefusal: 'error-flag' | 'http-status';
  /** Statuses a refused data call (REST-10016/10019) may carry, by version and deployment. */
  dataRefusalStatuses: readonly [401, 403];
  /** GSQL statements over `/gsqlserver/gsql/file` (form-encoded) or first `/gsql/v1/statements` (4.x). */
  gsqlStatements: 'file' | 'v1';
  /** Secrets through GSQL statements (bound to a graph), or the 4.1+ REST API (`/gsql/v1/secrets`, no graph). */
  secretsApi: 'gsql' | 'rest';
  /** The seed's `getToken(secret)` answer: `[token, epoch, iso]` before 3.6, the token alone from 3.6. */
  getTokenReturnsTriple: boolean;
}

const DAY = 86_400;

export function capabilitiesOf(version: string | Version): Capabilities {
  const v = typeof version === 'string' ? parseVersion(version) : version;
  const atLeast = (text: string) => compareVersions(v, text) >= 0;
  const v35 = atLeast('3.5.0');
  const v41 = atLeast('4.1.0');
  return {
    version: v,
    era: !v35 ? 'query' : v41 ? 'jwt' : 'json',
    tokenEndpoint: v41 ? 'gsql' : 'restpp',
    passwordTokens: v35,
    passwordTokenNested: v35 && !v41,
    graphWithSecret: !v35 ? 'none' : v41 ? 'scopes' : 'checked',
    refreshOnWire: !v41,
    tokenFormat: v41 ? 'jwt' : 'opaque',
    expiration: v41 ? 'date' : 'epoch',
    expirationMayBeOmitted: atLeast('3.6.0'),
    defaultLifetimeSec: v41 ? 7 * DAY : 30 * DAY,
    externalJwt: atLeast('3.10.0'),
    restppUnderAdmin: v41,
    tokenRefusal: v41 ? 'http-status' : 'error-flag',
    dataRefusalStatuses: [401, 403],
    gsqlStatements: v.major >= 4 ? 'v1' : 'file',
    secretsApi: v41 ? 'rest' : 'gsql',
    getTokenReturnsTriple: !atLeast('3.6.0'),
  };
}

/** The version bands of the documented table, each with the version it is computed from. */
export const VERSION_BANDS = [
  { label: '≤ 3.4', sample: '3.4.0' },
  { label: '3.5', sample: '3.5.0' },
  { label: '3.6 – 3.9', sample: '3.9.3' },
  { label: '3.10 – 3.11', sample: '3.11.0' },
  { label: '4.0', sample: '4.0.2' },
  { label: '4.1+', sample: '4.1.0' },
] as const;

type Row = readonly [string, (c: Capabilities) => string];

const ROWS: readonly Row[] = [
  [
    'Token request',
    (c) =>
      c.era === 'query'
        ? '`GET /requesttoken?secret=S&lifetime=N` (data server)'
        : c.era === 'json'
          ? '`POST /requesttoken` (data server), JSON body `{"secret", "graph"?, "lifetime"}`'
          : '`POST /gsql/v1/tokens` (admin server), JSON body `{"secret", "graph"?, "lifetime"?}`',
  ],
  [
    'Token answer',
    (c) =>
      `${c.tokenFormat === 'jwt' ? 'a JWT' : '32 characters'}; \`expiration\` ${c.expiration === 'epoch' ? 'epoch seconds' : 'a date string'}${c.expirationMayBeOmitted ? ', may be left out' : ''}`,
  ],
  ['Default lifetime', (c) => `${c.defaultLifetimeSec / DAY} days`],
  [
    'Username/password token',
    (c) =>
      !c.passwordTokens
        ? 'no (a secret only)'
        : `Basic + \`{"graph"}\`; token in ${c.passwordTokenNested ? '`results.token`' : '`token`'}`,
  ],
  [
    'Graph beside a secret',
    (c) =>
      c.graphWithSecret === 'none'
        ? 'not sent (the token is for the secret’s graph)'
        : c.graphWithSecret === 'checked'
          ? 'checked: not the secret’s → `graph_not_found`'
          : 'scopes the token; unknown → `graph_not_found`',
  ],
  ['Refresh', (c) => (c.refreshOnWire ? '`PUT`: same token, expiry now + lifetime' : 'none: a new token is minted')],
  [
    'Delete',
    (c) =>
      c.era === 'query'
        ? '`DELETE /requesttoken?secret&token`'
        : c.era === 'json'
          ? '`DELETE /requesttoken`, JSON body'
          : '`DELETE /gsql/v1/tokens`: block list (as `__GSQL__secret`)',
  ],
  [
    'Token refusal',
    (c) => (c.tokenRefusal === 'error-flag' ? 'HTTP 200, `"error": true`' : '401 bad credentials, 400 wrong graph'),
  ],
  ['Data call refused', (c) => `REST-10016/10019, HTTP ${c.dataRefusalStatuses.join(' or ')}`],
  ['External JWTs on RESTPP', (c) => (c.externalJwt ? 'yes (`Security.JWT.*`)' : 'no')],
  ['Data server', (c) => (c.restppUnderAdmin ? '`<admin server>/restpp/…`' : '`:9000/…`')],
  [
    'Secrets',
    (c) =>
      c.secretsApi === 'rest'
        ? 'REST `/gsql/v1/secrets`, no graph'
        : `GSQL statements (${c.gsqlStatements === 'v1' ? '`/gsql/v1/statements`' : '`/gsqlserver/gsql/file`'}), per graph`,
  ],
  ['`getToken(secret)` returns', (c) => (c.getTokenReturnsTriple ? '`[token, epoch, iso]`' : 'the token')],
];

/** The cells of the table docs/client-library.md shows, header first, computed for each band. */
export function versionTableCells(): string[][] {
  const caps = VERSION_BANDS.map((b) => capabilitiesOf(b.sample));
  return [['', ...VERSION_BANDS.map((b) => b.label)], ...ROWS.map(([name, cell]) => [name, ...caps.map(cell)])];
}

/** That table as Markdown. */
export function renderVersionTable(): string {
  const [header = [], ...rows] = versionTableCells();
  const line = (cells: readonly string[]) => `| ${cells.join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}

/** <3.5 query strings, 3.5–4.0 JSON bodies, ≥4.1 GSQL-issued JWTs. */
export const wireEraOf = (version: string): WireEra => capabilitiesOf(version).era;

/** The seed: 3.5 and earlier return (token, epoch, ISO) from getToken; 3.6 and later the token alone. */
export const getTokenReturnsTriple = (version: string): boolean => capabilitiesOf(version).getTokenReturnsTriple;
