import { createRequire } from 'node:module';
import type { DocumentOptions, ParseOptions, SchemaOptions, ToJSOptions } from 'yaml';

const require = createRequire(import.meta.url);

/**
 * `yaml`'s parse, loaded on first use (require's cache keeps it after): its 72 files were a tenth of a
 * start's module loading, and most starts read no YAML (a quota policy file does; GET /openapi.json serves
 * the build's JSON copy).
 */
export function parseYaml(
  text: string,
  options?: ParseOptions & DocumentOptions & SchemaOptions & ToJSOptions,
): unknown {
  return (require('yaml') as typeof import('yaml')).parse(text, options);
}
