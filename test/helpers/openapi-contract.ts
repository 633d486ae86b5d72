import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import formats from 'ajv-formats';
import { parse } from 'yaml';

// ajv-formats is CommonJS with `exports.default`: under NodeNext the default import is the module object.
const addFormats = formats.default;

export const OPENAPI_YAML = new URL('../../docs/openapi.yaml', import.meta.url);

type Json = Record<string, unknown>;

/** What a check needs of an answer: supertest's response has all of it. */
export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text?: string;
  body?: unknown;
}

export interface Contract {
  doc: Json;
  /**
   * Throws unless `status` is listed for `method template` and the body fits that response's schema
   * for its content type (a response without content must have an empty body).
   */
  check(method: string, template: string, answer: Answer): void;
}

const escapePointer = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');

export function loadDocument(): Json {
  return parse(readFileSync(OPENAPI_YAML, 'utf8')) as Json;
}

/** The document's response schemas, compiled with ajv's 2020-12 dialect (what OpenAPI 3.1 schemas are). */
export function loadContract(doc: Json = loadDocument()): Contract {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addSchema(doc, 'openapi');

  const responseOf = (method: string, template: string, status: number): { pointer: string; response: Json } => {
    const item = (doc['paths'] as Record<string, Json | undefined>)[template];
    const operation = item?.[method.toLowerCase()] as Json | undefined;
    if (!operation) throw new Error(`${method} ${template} is not in the document`);
    const responses = operation['responses'] as Record<string, Json | undefined>;
    let response = responses[String(status)];
    let pointer = `/paths/${escapePointer(template)}/${method.toLowerCase()}/responses/${status}`;
    if (!response) throw new Error(`${method} ${template} answered ${status}, which the document does not list for it`);
    const ref = response['$ref'];
    if (typeof ref === 'string') {
      pointer = ref.slice(1);
      response = (doc['components'] as { responses: Record<string, Json> }).responses[ref.split('/').pop()!]!;
    }
    return { pointer, response };
  };

  return {
    doc,
    check(method, template, answer) {
      const { pointer, response } = responseOf(method, template, answer.status);
      const content = response['content'] as Record<string, Json> | undefined;
      const text = answer.text ?? '';
      if (!content || method.toUpperCase() === 'HEAD') {
        if (text !== '')
          throw new Error(
            `${method} ${template} ${answer.status} has a body the document does not describe: ${text.slice(0, 200)}`,
          );
        return;
      }
      const type = String(answer.headers['content-type'] ?? '')
        .split(';')[0]!
        .trim();
      const mediaType = type in content ? type : '*/*' in content ? '*/*' : undefined;
      if (mediaType === undefined)
        throw new Error(
          `${method} ${template} ${answer.status} answered ${type}; the document lists ${Object.keys(content).join(', ')}`,
        );
      const validate = ajv.getSchema(`openapi#${pointer}/content/${escapePointer(mediaType)}/schema`);
      if (!validate) throw new Error(`no schema at ${pointer}`);
      const body = type === 'application/json' ? JSON.parse(text) : text;
      if (!validate(body)) {
        throw new Error(
          `${method} ${template} ${answer.status} body does not fit the document: ${ajv.errorsText(validate.errors)}\n${text.slice(0, 500)}`,
        );
      }
    },
  };
}

/** `code -> status` from the document's per-status error schemas (Error400 …), with every code's status. */
export function documentedErrorCodes(doc: Json): { enum: string[]; byStatus: Map<number, string[]> } {
  const schemas = (doc['components'] as { schemas: Record<string, Json> }).schemas;
  const byStatus = new Map<number, string[]>();
  for (const [name, schema] of Object.entries(schemas)) {
    const match = /^Error(\d{3})$/.exec(name);
    if (!match) continue;
    const code = (((schema['properties'] as Json)['error'] as Json)['properties'] as Json)['code'] as {
      enum: string[];
    };
    byStatus.set(Number(match[1]), code.enum);
  }
  return { enum: (schemas['ErrorCode'] as { enum: string[] }).enum, byStatus };
}
