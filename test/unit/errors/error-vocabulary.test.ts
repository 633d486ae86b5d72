import { readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import { AppError, ERROR_CODES, type ErrorCode } from '../../../src/errors.js';

// The error table of the HTTP contract (it left the README with the rest of the contract, issue 30 item 8).
const API_DOC = new URL('../../../docs/api.md', import.meta.url);

/** (code, status) of every row of docs/api.md's error table; a row may name several codes (`a` / `b`). */
function readmeRows(): Array<[string, number]> {
  const text = readFileSync(API_DOC, 'utf8');
  const rows = [...text.matchAll(/^\| ((?:`[a-z_]+`(?: \/ )?)+) \| (\d{3}) \|/gm)];
  return rows.flatMap(([, codes, status]) =>
    [...codes!.matchAll(/`([a-z_]+)`/g)].map(([, code]): [string, number] => [code!, Number(status)]),
  );
}

const vocabulary = (): Array<[string, number]> =>
  Object.entries(ERROR_CODES).map(([code, { status }]) => [code, status]);
const byCode = (a: [string, number], b: [string, number]) => a[0].localeCompare(b[0]);

describe('the error vocabulary', () => {
  it('when docs/api.md lists the error codes, then its table is exactly the vocabulary, code and status, both ways', () => {
    const rows = readmeRows();
    expect(rows.length).toBeGreaterThan(20);
    expect([...rows].sort(byCode)).toEqual(vocabulary().sort(byCode));
  });

  it('when an AppError is made from a code, then the status and default message come from the table', () => {
    for (const [code, { status, message }] of Object.entries(ERROR_CODES) as Array<
      [ErrorCode, { status: number; message: string }]
    >) {
      const err = new AppError(code);
      expect([code, err.status, err.message, err.expose]).toEqual([code, status, message, status < 500]);
    }
  });

  it('when a site overrides the message, then the code keeps its one status and options still apply', () => {
    const cause = new Error('inner');
    const err = new AppError('invalid_request', '"graph" must be a name', { cause, headers: { 'X-A': '1' } });
    expect(err).toMatchObject({
      status: 400,
      code: 'invalid_request',
      message: '"graph" must be a name',
      headers: { 'X-A': '1' },
    });
    expect(err.cause).toBe(cause);
    expect(new AppError('store_unavailable', { cause }).message).toBe('Session store unavailable');
  });

  it('when a code is not in the table, then it does not compile', () => {
    // The assertion is tsc's (npm run lint): an unknown code is a type error, a known one is not.
    const build = (): AppError[] => [
      // @ts-expect-error: 'upstream_down' is not an ErrorCode
      new AppError('upstream_down'),
      new AppError('upstream_unavailable'),
    ];
    expect(typeof build).toBe('function');
  });

  it('when codes are listed, then each is snake_case with a 4xx or 5xx status', () => {
    for (const [code, status] of vocabulary()) {
      expect([code, /^[a-z]+(_[a-z]+)*$/.test(code), status >= 400 && status < 600]).toEqual([code, true, true]);
    }
  });
});
