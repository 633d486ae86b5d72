import { createRequire } from 'node:module';
import type { DocumentOptions, ParseOptions, SchemaOptions, ToJSOptions } from 'yaml';

type Yaml = typeof import('yaml');

let loaded: Yaml | undefined;

/**
 * `yaml`'s parse, loaded on first use: its 72 files were a tenth of a start's module loading, and most
 * starts read no YAML (a quota policy file does; GET /openapi.json serves the build's JSON copy).
 */
export function parseYaml(
  text: string,
  options?: ParseOptions & DocumentOptions & SchemaOptions & ToJSOptions,
): unknown {
  loaded ??= createRequire(import.meta.url)('yaml') as Yaml;
  return loaded.parse(text, options);
}
