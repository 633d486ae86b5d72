import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Validator } from '@seriousme/openapi-schema-validator';
import { ERROR_CODES } from '../../../src/errors/codes.js';
import { documentedErrorCodes, loadDocument } from '../../helpers/openapi-contract.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const doc = loadDocument();
const documented = documentedErrorCodes(doc);

/** Every (status, code) the service can answer: the vocabulary table every AppError is built from. */
function answeredCodes(): Array<[number, string]> {
  return Object.entries(ERROR_CODES).map(([code, { status }]) => [status, code]);
}

describe('docs/openapi.yaml', () => {
  test('when validated against the OpenAPI 3.1 schema, then it is valid', async () => {
    const result = await new Validator().validate(doc);
    expect(result).toEqual({ valid: true });
    expect(String(doc['openapi'])).toMatch(/^3\.1\./);
  });

  test('when the source answers an error code, then the document lists that code under that status', () => {
    const answered = answeredCodes();
    expect(answered.length).toBeGreaterThan(25);
    const missing = answered.filter(([status, code]) => !documented.byStatus.get(status)?.includes(code));
    expect(missing).toEqual([]);
  });

  test('when the document lists an error code under a status, then the vocabulary has that code with that status', () => {
    const extra = [...documented.byStatus].flatMap(([status, codes]) =>
      codes
        .filter((code) => (ERROR_CODES as Record<string, { status: number }>)[code]?.status !== status)
        .map((code) => [status, code]),
    );
    expect(extra).toEqual([]);
  });

  test('when the per-status error schemas are joined, then they are exactly the ErrorCode enum, each code once', () => {
    const all = [...documented.byStatus.values()].flat();
    expect(new Set(all).size).toBe(all.length);
    expect([...all].sort()).toEqual([...documented.enum].sort());
  });

  test('when the error table of docs/api.md names a code, then the document has it under the same status', () => {
    const readme = readFileSync(path.join(ROOT, 'docs/api.md'), 'utf8');
    const rows = [...readme.matchAll(/^\| ((?:`[a-z_]+`(?: \/ )?)+) \| (\d{3}) \|/gm)];
    expect(rows.length).toBeGreaterThan(10);
    for (const [, codes, status] of rows) {
      for (const [, code] of codes!.matchAll(/`([a-z_]+)`/g)) {
        expect([code, documented.byStatus.get(Number(status))?.includes(code!)]).toEqual([code, true]);
      }
    }
  });
});
