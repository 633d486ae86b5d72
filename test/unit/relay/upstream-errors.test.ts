import { describe, expect, it } from '@jest/globals';
import { classifyUpstreamError, endedByClient, upstreamAppError } from '../../../src/relay/upstream-errors.js';

const withCode = (code: string, message = 'x'): Error => Object.assign(new Error(message), { code });

describe('classifyUpstreamError', () => {
  it.each([
    ['UND_ERR_CONNECT_TIMEOUT', 'timeout'],
    ['UND_ERR_HEADERS_TIMEOUT', 'timeout'],
    ['UND_ERR_BODY_TIMEOUT', 'timeout'],
    ['ECONNREFUSED', 'unavailable'],
    ['ENOTFOUND', 'unavailable'],
    ['UND_ERR_SOCKET', 'unavailable'],
    ['ECONNRESET', 'unavailable'],
    ['SELF_SIGNED_CERT_IN_CHAIN', 'unavailable'],
    ['UND_ERR_ABORTED', 'timeout'],
    ['HPE_INVALID_CONSTANT', 'protocol'],
    ['UND_ERR_RES_CONTENT_LENGTH_MISMATCH', 'protocol'],
  ])('when err.code is %s, then the kind is %s', (code, kind) => {
    expect(classifyUpstreamError(withCode(code))).toBe(kind);
  });

  it('when the code sits on an AggregateError member or a cause, then it is still found', () => {
    expect(classifyUpstreamError(new AggregateError([withCode('ECONNREFUSED')]))).toBe('unavailable');
    expect(classifyUpstreamError(new Error('wrapped', { cause: withCode('UND_ERR_HEADERS_TIMEOUT') }))).toBe('timeout');
  });

  it('when only the message mentions a timeout, then it is not classified as one', () => {
    expect(classifyUpstreamError(new Error('connect ETIMEDOUT timeout refused'))).toBe('protocol');
  });

  it('when mapped, then timeouts are 504 upstream_timeout, refusals 502 upstream_unavailable, unusable answers 502 upstream_error, rejections 401 token_rejected', () => {
    expect(upstreamAppError('timeout', null)).toMatchObject({ status: 504, code: 'upstream_timeout', expose: false });
    expect(upstreamAppError('unavailable', null)).toMatchObject({ status: 502, code: 'upstream_unavailable' });
    expect(upstreamAppError('protocol', null)).toMatchObject({ status: 502, code: 'upstream_error' });
    expect(upstreamAppError('rejected', null)).toMatchObject({ status: 401, code: 'token_rejected', expose: true });
  });

  it('when a pipeline ends because the browser left, then endedByClient says so', () => {
    expect(endedByClient(withCode('ERR_STREAM_PREMATURE_CLOSE'))).toBe(true);
    expect(endedByClient(withCode('UND_ERR_SOCKET'))).toBe(false);
  });
});
