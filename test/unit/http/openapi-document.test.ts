import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Validator } from '@seriousme/openapi-schema-validator';
import { documentedErrorCodes, loadDocument } from '../../helpers/openapi-contract.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const doc = loadDocument();
const documented = documentedErrorCodes(doc);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    return entry.isDirectory() ? sourceFiles(full) : entry.name.endsWith('.ts') ? [full] : [];
  });
}

/** Every (status, code) the service can answer: `new AppError(status, 'code'` and error-handler's tables. */
function answeredCodes(): Array<[number, string]> {
  const found: Array<[number, string]> = [];
  for (const file of sourceFiles(path.join(ROOT, 'src'))) {
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(/new AppError\(\s*(\d{3}),\s*'([a-z_]+)'/g)) found.push([Number(m[1]), m[2]!]);
    // error-handler.ts: `[status, 'code', 'message']` by body-parser type, and `status: ['code', 'message']`.
    for (const m of text.matchAll(/\[(\d{3}), '([a-z_]+)', '/g)) found.push([Number(m[1]), m[2]!]);
    for (const m of text.matchAll(/^\s*(\d{3}): \['([a-z_]+)', '/gm)) found.push([Number(m[1]), m[2]!]);
  }
  return found;
}

describe('docs/openapi.yaml', () => {
  test('when validated against the OpenAPI 3.1 schema, then it is valid', async () => {
    const result = await new Validator().validate(doc);
    expect(result).toEqual({ valid: true });
    expect(String(doc['openapi'])).toMatch(/^3\.1\./);
  });

  test('when the source answers an error code, then the document lists that code under that status', () => {
    const answered = answeredCodes();
    expect(answered.length).toBeGreaterThan(30);
    const missing = answered.filter(([status, code]) => !documented.byStatus.get(status)?.includes(code));
    expect(missing).toEqual([]);
  });

  test('when the per-status error schemas are joined, then they are exactly the ErrorCode enum, each code once', () => {
    const all = [...documented.byStatus.values()].flat();
    expect(new Set(all).size).toBe(all.length);
    expect([...all].sort()).toEqual([...documented.enum].sort());
  });

  test('when the README error table names a code, then the document has it under the same status', () => {
    const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    const rows = [...readme.matchAll(/^\| ((?:`[a-z_]+`(?: \/ )?)+) \| (\d{3}) \|/gm)];
    expect(rows.length).toBeGreaterThan(10);
    for (const [, codes, status] of rows) {
      for (const [, code] of codes!.matchAll(/`([a-z_]+)`/g)) {
        expect([code, documented.byStatus.get(Number(status))?.includes(code!)]).toEqual([code, true]);
      }
    }
  });
});
