import { ERROR_STATUS } from '@tigergraph-bff/browser';
import { ERROR_CODES } from '../../../src/errors/codes.js';

// The browser SDK carries the service's error vocabulary without the server's code: this keeps the two equal.
describe('browser SDK error codes', () => {
  it("when compared with src/errors/codes.ts, then every code and status is the service's, in the same order", () => {
    const service = Object.fromEntries(Object.entries(ERROR_CODES).map(([code, { status }]) => [code, status]));
    // A failure here: copy the service's codes into packages/browser/src/error-codes.ts (ERROR_STATUS).
    expect(Object.entries(ERROR_STATUS)).toEqual(Object.entries(service));
  });
});
