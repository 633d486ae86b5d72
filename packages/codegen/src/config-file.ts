import { readFile } from 'node:fs/promises';
import { usage } from './errors.js';

/**
 * `tgbff-codegen.json`: what a project says once. Every field is optional; a flag given on the command line
 * wins over the file. `results` maps a query's name to its row type (TypeScript text), `imports` brings the
 * types those name into the generated module.
 */
export interface CodegenConfig {
  graph?: string;
  service?: string;
  restppUrl?: string;
  out?: string;
  results?: Record<string, string>;
  imports?: string[];
  /** Also a `<query>Async` function per query (Detached Mode). */
  async?: boolean;
}

const FIELDS = new Set(['$schema', 'graph', 'service', 'restppUrl', 'out', 'results', 'imports', 'async']);
const MAX_CONFIG_BYTES = 1024 * 1024;

const isString = (v: unknown): v is string => typeof v === 'string';

/** The config file, checked field by field; a missing file is undefined when `optional` (the default name). */
export async function readConfig(file: string, optional = false): Promise<CodegenConfig | undefined> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    if (optional && (err as { code?: unknown }).code === 'ENOENT') return undefined;
    throw usage(`cannot read the config file ${file}: ${(err as Error).message}`);
  }
  if (text.length > MAX_CONFIG_BYTES) throw usage(`the config file ${file} is larger than 1 MiB`);
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    throw usage(`the config file ${file} is not JSON: ${(err as Error).message}`);
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data))
    throw usage(`the config file ${file} must hold a JSON object`);
  const raw = data as Record<string, unknown>;
  const unknown = Object.keys(raw).filter((k) => !FIELDS.has(k));
  if (unknown.length) throw usage(`the config file ${file} has unknown fields: ${unknown.join(', ')}`);
  for (const key of ['graph', 'service', 'restppUrl', 'out'] as const)
    if (raw[key] !== undefined && !isString(raw[key])) throw usage(`${file}: "${key}" must be a string`);
  const results = raw.results;
  if (
    results !== undefined &&
    (typeof results !== 'object' ||
      results === null ||
      Array.isArray(results) ||
      !Object.values(results).every(isString))
  )
    throw usage(`${file}: "results" must map query names to TypeScript types (strings)`);
  if (raw.imports !== undefined && !(Array.isArray(raw.imports) && raw.imports.every(isString)))
    throw usage(`${file}: "imports" must be a list of import lines`);
  if (raw.async !== undefined && typeof raw.async !== 'boolean') throw usage(`${file}: "async" must be true or false`);
  return raw as CodegenConfig;
}
