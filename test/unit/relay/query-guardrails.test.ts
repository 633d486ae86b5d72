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
    expect(
      withQueryLimits(flat, { timeout: '30000', responseLimit: '1', threads: undefined, memoryMb: undefined }),
    ).toEqual([
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

  describe('thread and memory caps', () => {
    const CAPPED: QueryGuardrails = { ...G, threads: { max: 8, default: 4 }, memoryMb: { max: 2048, default: 1024 } };

    it('when the caps are off, then neither header goes upstream, whatever the browser sent', () => {
      const limits = queryLimits({ 'gsql-thread-limit': '64', 'gsql-querylocalmemlimitmb': '99999' }, G);
      expect([limits.threads, limits.memoryMb]).toEqual([undefined, undefined]);
      const flat = ['gsql-thread-limit', '64', 'gsql-querylocalmemlimitmb', '99999'];
      expect(withQueryLimits(flat, limits)).toEqual(['gsql-timeout', '16000', 'response-limit', '1000000']);
    });

    it('when the browser sends none, then the defaults; less, what it asked; more, the caps', () => {
      expect(queryLimits({}, CAPPED)).toMatchObject({ threads: '4', memoryMb: '1024' });
      expect(queryLimits({ 'gsql-thread-limit': '2', 'gsql-querylocalmemlimitmb': ' 512 ' }, CAPPED)).toMatchObject({
        threads: '2',
        memoryMb: '512',
      });
      expect(
        queryLimits({ 'gsql-thread-limit': '640', 'gsql-querylocalmemlimitmb': '999999999' }, CAPPED),
      ).toMatchObject({ threads: '8', memoryMb: '2048' });
    });

    it.each([
      ['gsql-thread-limit', '0', 'GSQL-THREAD-LIMIT: must be a whole number of threads'],
      ['gsql-thread-limit', '4.5', 'GSQL-THREAD-LIMIT'],
      ['gsql-thread-limit', '0x10', 'GSQL-THREAD-LIMIT'],
      ['gsql-thread-limit', '4, 4', 'GSQL-THREAD-LIMIT'],
      ['gsql-querylocalmemlimitmb', '-1', 'GSQL-QueryLocalMemLimitMB: must be a whole number of megabytes'],
      ['gsql-querylocalmemlimitmb', '1GB', 'GSQL-QueryLocalMemLimitMB'],
    ])('when %s is %j, then 400 invalid_request names the header', (name, value, message) => {
      expect(() => queryLimits({ [name]: value }, CAPPED)).toThrow(
        expect.objectContaining({ code: 'invalid_request', status: 400, message: expect.stringContaining(message) }),
      );
    });

    it('when the upstream list carries the browser values, then the capped ones replace them', () => {
      const limits = queryLimits({ 'gsql-thread-limit': '640' }, CAPPED);
      expect(withQueryLimits(['gsql-thread-limit', '640', 'accept', '*/*'], limits)).toEqual([
        'accept',
        '*/*',
        'gsql-timeout',
        '16000',
        'response-limit',
        '1000000',
        'gsql-thread-limit',
        '8',
        'gsql-querylocalmemlimitmb',
        '1024',
      ]);
    });
  });
});
