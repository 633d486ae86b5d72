import { canonicalTarget, createCoalescer, type KeyParts } from '../../../src/relay/coalescing.js';

describe('request coalescing: the key', () => {
  const coalescer = createCoalescer({
    maxWaiters: 4,
    maxBufferedBytes: 1024,
    readOnlyQueries: new Set(['social/report']),
  });
  const base: KeyParts = {
    shareAs: 'principal-a\nsecret\nsocial',
    method: 'GET',
    path: '/query/social/q?b=2&a=1',
    limits: { timeout: '16000', responseLimit: '1000', threads: undefined, memoryMb: undefined },
    forwarded: ['accept', 'application/json'],
    body: null,
  };
  const key = (over: Partial<KeyParts>) => coalescer.keyOf({ ...base, ...over });

  it('when parameters come in another order, then the key is the same; repeated ones keep their order', () => {
    expect(canonicalTarget('/q?b=2&a=1&&c')).toBe('/q?a=1&b=2&c');
    expect(canonicalTarget('/q?p=2&a=1&p=1')).toBe('/q?a=1&p=2&p=1');
    expect(key({ path: '/query/social/q?a=1&b=2' })).toBe(key({}));
    expect(key({ path: '/query/social/q?p=1&p=2' })).not.toBe(key({ path: '/query/social/q?p=2&p=1' }));
  });

  it.each<[string, Partial<KeyParts>]>([
    ['another principal', { shareAs: 'principal-b\nsecret\nsocial' }],
    ['a token for another graph', { shareAs: 'principal-a\nsecret\nother' }],
    ['another method', { method: 'POST' }],
    ['another spelling of a parameter', { path: '/query/social/q?b=2&%61=1' }],
    [
      'another sizing header',
      { limits: { timeout: '15000', responseLimit: '1000', threads: undefined, memoryMb: undefined } },
    ],
    [
      'another thread limit',
      { limits: { timeout: '16000', responseLimit: '1000', threads: '2', memoryMb: undefined } },
    ],
    ['another forwarded header', { forwarded: ['accept', 'text/csv'] }],
    ['an Accept-Encoding forwarded', { forwarded: ['accept', 'application/json', 'accept-encoding', 'gzip'] }],
    ['a body', { body: Buffer.from('{}') }],
  ])('when a read differs by %s, then its key differs', (_, over) => {
    expect(key(over)).not.toBe(key({}));
  });

  it('when bodies differ, then keys differ; the same bytes give the same key', () => {
    expect(key({ body: Buffer.from('{"a":1}') })).toBe(key({ body: Buffer.from('{"a":1}') }));
    expect(key({ body: Buffer.from('{"a":1}') })).not.toBe(key({ body: Buffer.from('{"a":2}') }));
  });

  it('when forwarded headers come in another order, then the key is the same', () => {
    const two = ['accept', 'application/json', 'content-type', 'application/json'];
    expect(key({ forwarded: two })).toBe(key({ forwarded: [...two.slice(2), ...two.slice(0, 2)] }));
  });

  it('when a request is a GET or a POST to a query marked readOnly, then it is eligible; nothing else is', () => {
    expect(coalescer.eligible('GET', '/graph/social/vertices/Person')).toBe(true);
    expect(coalescer.eligible('POST', '/query/social/report')).toBe(true);
    expect(coalescer.eligible('POST', '/query/social/other')).toBe(false);
    expect(coalescer.eligible('POST', '/graph/social')).toBe(false);
    expect(coalescer.eligible('DELETE', '/graph/social/vertices/Person/x')).toBe(false);
  });
});
