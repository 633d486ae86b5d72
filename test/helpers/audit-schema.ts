import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import formats from 'ajv-formats';

// ajv-formats is CommonJS with `exports.default`: under NodeNext the default import is the module object.
const addFormats = formats.default;

export const AUDIT_SCHEMA = new URL('../../docs/audit.schema.json', import.meta.url);

/**
 * The audit trail's JSON Schema (docs/audit.schema.json), compiled once: `problems(text)` validates every
 * line of an audit stream and names each line that is not JSON or does not match.
 */
export function auditValidator(): {
  problems(text: string): string[];
  events(text: string): Array<Record<string, unknown>>;
} {
  const ajv = new Ajv2020({ allErrors: true, strict: true });
  addFormats(ajv);
  const validate = ajv.compile(JSON.parse(readFileSync(AUDIT_SCHEMA, 'utf8')) as object);
  const lines = (text: string) => text.split('\n').filter((l) => l !== '');
  return {
    problems(text) {
      const found: string[] = [];
      for (const line of lines(text)) {
        let value: unknown;
        try {
          value = JSON.parse(line);
        } catch {
          found.push(`not JSON: ${line}`);
          continue;
        }
        if (!validate(value)) {
          // oneOf reports every branch; the one whose `event` const matched is the useful part.
          const errors = (validate.errors ?? []).filter(
            (e) => !e.instancePath.endsWith('/event') && e.keyword !== 'const',
          );
          found.push(`${line}: ${ajv.errorsText(errors.length > 0 ? errors.slice(0, 4) : validate.errors)}`);
        }
      }
      return found;
    },
    events: (text) => lines(text).map((l) => JSON.parse(l) as Record<string, unknown>),
  };
}
