import { existsSync, readFileSync, statSync } from 'node:fs';
import { z } from 'zod';
import { isName } from '@tigergraph-bff/client';
import { Invalid } from './fields.js';
import { parseYaml } from './yaml.js';

/**
 * OIDC_CREDENTIAL_MAP: which TigerGraph credential the service holds for whom. Ordered rules; each matches
 * IdP claims and names the graphs it opens and a credential, always by reference (a file or a variable,
 * read again at every mint, so a rotation needs no restart). Parsed and checked once at start-up: every bad
 * rule named at once, a missing file or variable named, never a value (docs/single-sign-on.md).
 */
export interface CredentialMap {
  /** Where the file was (for messages and the audit trail of settings). */
  path: string;
  rules: readonly MapRule[];
}

export type CredentialRef =
  | { kind: 'secret'; file: string }
  | { kind: 'secret'; env: string }
  | { kind: 'password'; username: string; file: string }
  | { kind: 'password'; username: string; env: string };

export interface MapRule {
  name: string;
  /** Dotted path into the claims (`groups`, `realm_access.roles`). */
  claim: string;
  /** Any of these values in the claim matches. */
  match: readonly string[];
  /** The subject, exactly. */
  sub?: string;
  /** The e-mail, exactly, and only with `email_verified: true`. */
  email?: string;
  /** Graph names, or `*` for any graph the credential reaches. */
  graphs: readonly string[];
  credential: CredentialRef;
}

/** Limits of the file itself: a map is written by an operator, never this large. */
export const MAP_LIMITS = { bytes: 256 * 1024, rules: 200, values: 100, valueLength: 256 } as const;

const RULE_NAME = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/;
const CLAIM_PATH = /^[A-Za-z_][\w:/-]{0,63}(\.[A-Za-z_][\w:/-]{0,63}){0,4}$/;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;

const value = z.string().min(1, 'must not be empty').max(MAP_LIMITS.valueLength, 'is too long');
const envName = z.string().regex(ENV_NAME, 'must be an environment variable name');
const filePath = z.string().min(1).max(4096).startsWith('/', 'must be an absolute path');

const credential = z.union(
  [
    z.strictObject({ secretFile: filePath }),
    z.strictObject({ secretEnv: envName }),
    z.strictObject({ username: value, passwordFile: filePath }),
    z.strictObject({ username: value, passwordEnv: envName }),
  ],
  {
    error:
      'must be one of {secretFile}, {secretEnv}, {username, passwordFile}, {username, passwordEnv}: a reference, never the value',
  },
);

const ruleShape = z.strictObject({
  name: z.string().regex(RULE_NAME, 'must be a name of letters, digits, _ or - (at most 64), starting with a letter'),
  claim: z.string().regex(CLAIM_PATH, 'must be a claim path like groups or realm_access.roles').optional(),
  match: z.array(value).max(MAP_LIMITS.values, `must list at most ${MAP_LIMITS.values} values`).optional(),
  sub: value.optional(),
  email: value.optional(),
  graphs: z
    .array(z.string().refine((g) => g === '*' || isName(g), 'must be graph names or *'))
    .min(1, 'must name at least one graph, or *'),
  credential,
});

const fileShape = z.strictObject({
  claim: z.string().regex(CLAIM_PATH, 'must be a claim path like groups or realm_access.roles').optional(),
  rules: z.array(z.unknown()).min(1, 'must list at least one rule').max(MAP_LIMITS.rules, 'has too many rules'),
});

/** The file's text, read once at start-up (its rules are checked by credentialMapOf). */
export function credentialMapFile(path: string): { path: string; text: string } {
  let size: number;
  try {
    size = statSync(path).size;
  } catch {
    throw new Invalid('cannot read the file');
  }
  if (size > MAP_LIMITS.bytes) throw new Invalid(`the file is larger than ${MAP_LIMITS.bytes} bytes`);
  try {
    return { path, text: readFileSync(path, 'utf8') };
  } catch {
    throw new Invalid('cannot read the file');
  }
}

const where = (issue: z.core.$ZodIssue): string => (issue.path.length > 0 ? `${issue.path.join('.')}: ` : '');

/**
 * The map, or every issue found: each names the rule (`rule 2 (admins)`) and the field, and a referenced
 * file or variable that is missing by its name; never a value. `env` is where variables are looked up.
 */
export function credentialMapOf(
  file: { path: string; text: string },
  env: Record<string, string | undefined>,
  options: { passwordTokens: boolean },
): { map?: CredentialMap; issues: string[] } {
  let raw: unknown;
  try {
    // JSON is YAML: one parser for both. Aliases are refused (a "billion laughs" file is not a map).
    raw = parseYaml(file.text, { maxAliasCount: 0, prettyErrors: false });
  } catch {
    return { issues: ['is not valid YAML or JSON'] };
  }
  const top = fileShape.safeParse(raw);
  if (!top.success) return { issues: top.error.issues.map((i) => `${where(i)}${i.message}`) };
  const defaultClaim = top.data.claim ?? 'groups';
  const issues: string[] = [];
  const rules: MapRule[] = [];
  const names = new Set<string>();
  top.data.rules.forEach((entry, index) => {
    const label = `rule ${index + 1}${nameOf(entry)}`;
    const parsed = ruleShape.safeParse(entry);
    if (!parsed.success) {
      for (const i of parsed.error.issues) issues.push(`${label}: ${where(i)}${i.message}`);
      return;
    }
    const r = parsed.data;
    const problems: string[] = [];
    if (names.has(r.name)) problems.push('name: is used by an earlier rule');
    names.add(r.name);
    if ((r.match?.length ?? 0) === 0 && r.sub === undefined && r.email === undefined)
      problems.push('must match something: match (claim values), sub or email');
    if (r.graphs.includes('*') && r.graphs.length > 1) problems.push('graphs: * stands alone');
    const ref = refOf(r.credential);
    problems.push(...missing(ref, env));
    if (ref.kind === 'password' && !options.passwordTokens)
      problems.push('credential: a username and password cannot mint tokens before TigerGraph 3.5; use a secret');
    if (problems.length > 0) {
      for (const p of problems) issues.push(`${label}: ${p}`);
      return;
    }
    rules.push({
      name: r.name,
      claim: r.claim ?? defaultClaim,
      match: r.match ?? [],
      ...(r.sub !== undefined && { sub: r.sub }),
      ...(r.email !== undefined && { email: r.email }),
      graphs: r.graphs,
      credential: ref,
    });
  });
  return issues.length > 0 ? { issues } : { map: { path: file.path, rules }, issues };
}

/** ` (name)` when the entry has a usable name, for messages; the name is the operator's, not a secret. */
function nameOf(entry: unknown): string {
  const name = (entry as { name?: unknown } | null)?.name;
  return typeof name === 'string' && RULE_NAME.test(name) ? ` (${name})` : '';
}

function refOf(c: z.output<typeof credential>): CredentialRef {
  if ('secretFile' in c) return { kind: 'secret', file: c.secretFile };
  if ('secretEnv' in c) return { kind: 'secret', env: c.secretEnv };
  if ('passwordFile' in c) return { kind: 'password', username: c.username, file: c.passwordFile };
  return { kind: 'password', username: c.username, env: c.passwordEnv };
}

function missing(ref: CredentialRef, env: Record<string, string | undefined>): string[] {
  const field = ref.kind === 'secret' ? 'secret' : 'password';
  if ('env' in ref) {
    const v = env[ref.env];
    return v === undefined || v.trim() === '' ? [`credential: ${field}Env ${ref.env} is not set`] : [];
  }
  if (!existsSync(ref.file)) return [`credential: ${field}File ${ref.file} does not exist`];
  try {
    readFileSync(ref.file);
  } catch {
    return [`credential: ${field}File ${ref.file} cannot be read`];
  }
  return [];
}
