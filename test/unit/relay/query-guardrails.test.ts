import { queryLimits, withQueryLimits, type QueryGuardrails } from '../../../src/relay/query-guardrails.js';

const G: QueryGuardrails = { timeoutMaxMs: 30_000, timeoutDefaultMs: 16_000, responseLimitMax: 1_000_000 };

describe('query guardrails', () => {
  it('when the browser sends neither header, then the defaults go upstream', () => {
    expect(queryLimits({}, G)).toEqual({ timeout: '16000', responseLimit: '1000000' });
  });

  it('when the browser asks for less than the caps, then it gets what it asked', () => {
    expect(queryLimits({ 'gsql-timeout': '500', 'response-limit': ' 2048 ' }, G)).toEqual({
      timeout: '500',
      responseLimit: '2048',
    });
  });

  it('when the browser asks for more than the caps, then it gets the caps', () => {
    expect(queryLimits({ 'gsql-timeout': '7200000', 'response-limit': '999999999999' }, G)).toEqual({
      timeout: '30000',
      responseLimit: '1000000',
    });
  });

  it.each([
    ['gsql-timeout', '0', 'GSQL-TIMEOUT: must be a whole number of milliseconds'],
    ['gsql-timeout', '-5', 'GSQL-TIMEOUT'],
    ['gsql-timeout', '1e9', 'GSQL-TIMEOUT'],
    ['gsql-timeout', '100, 200', 'GSQL-TIMEOUT'],
    ['gsql-timeout', '9999999999999999999', 'GSQL-TIMEOUT'],
    ['response-limit', 'lots', 'RESPONSE-LIMIT: must be a whole number of bytes'],
    ['response-limit', '', 'RESPONSE-LIMIT'],
  ])('when %s is %j, then 400 invalid_request names the header', (name, value, message) => {
    expect(() => queryLimits({ [name]: value }, G)).toThrow(
      expect.objectContaining({ code: 'invalid_request', status: 400, message: expect.stringContaining(message) }),
    );
  });

  it('when the upstream list carries the browser values, then they are replaced, not duplicated', () => {
    const flat = [
      'accept',
      'application/json',
      'gsql-timeout',
      '9999999',
      'response-limit',
      '1',
      'authorization',
      'Bearer t',
    ];
    expect(withQueryLimits(flat, { timeout: '30000', responseLimit: '1' })).toEqual([
      'accept',
      'application/json',
      'authorization',
      'Bearer t',
      'gsql-timeout',
      '30000',
      'response-limit',
      '1',
    ]);
  });
});
