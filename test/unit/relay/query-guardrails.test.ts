import {
  queryLimits,
  timeoutParamCapSec,
  withQueryLimits,
  withTimeoutParamCapped,
  type QueryGuardrails,
} from '../../../src/relay/query-guardrails.js';

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

  describe("a built-in's timeout= query parameter (seconds)", () => {
    const capped = (path: string, query: string, g = G) =>
      withTimeoutParamCapped({ path, target: `${path}${query}` }, g);

    it.each([
      ['?timeout=3600', '?timeout=30'],
      ['?limit=1&timeout=31&sort=a', '?limit=1&timeout=30&sort=a'],
      ['?TIMEOUT=100', '?TIMEOUT=30'],
      ['?%74imeout=100', '?%74imeout=30'],
      ['?timeout=%2031', '?timeout=30'],
      ['?timeout=9&timeout=99', '?timeout=9&timeout=30'],
      ['?timeout=30', '?timeout=30'],
      ['?timeout=0', '?timeout=0'],
      ['?limit=1', '?limit=1'],
      ['', ''],
    ])('when a vertex listing asks %s, then TigerGraph gets %s', (asked, sent) => {
      expect(capped('/graph/social/vertices/Person', asked)).toBe(`/graph/social/vertices/Person${sent}`);
    });

    it('when a loading job asks for more, then it gets the cap; an installed query and other paths pass as sent', () => {
      expect(capped('/ddl/social', '?tag=load&timeout=999')).toBe('/ddl/social?tag=load&timeout=30');
      expect(capped('/query/social/q', '?timeout=999')).toBe('/query/social/q?timeout=999');
      expect(capped('/echo', '?timeout=999')).toBe('/echo?timeout=999');
    });

    it('when the cap is under a second, then the parameter is capped at 1 s, its least', () => {
      expect(timeoutParamCapSec({ ...G, timeoutMaxMs: 400 })).toBe(1);
      expect(timeoutParamCapSec({ ...G, timeoutMaxMs: 2999 })).toBe(2);
      expect(capped('/graph/g/vertices/V', '?timeout=5', { ...G, timeoutMaxMs: 400 })).toBe(
        '/graph/g/vertices/V?timeout=1',
      );
    });

    it.each(['?timeout=soon', '?timeout=-1', '?timeout=1.5', '?timeout', '?timeout=', '?timeout=%E0%A4%A'])(
      'when it is %s, then 400 invalid_request names it',
      (asked) => {
        expect(() => capped('/graph/g/edges/V/1', asked)).toThrow(
          expect.objectContaining({ code: 'invalid_request', message: 'timeout: must be a whole number of seconds' }),
        );
      },
    );
  });
});
