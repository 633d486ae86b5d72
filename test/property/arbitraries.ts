import fc from 'fast-check';

/** Pieces attackers and confused clients put in paths: traversal in every encoding, separators, case, unicode. */
const TRICKY_SEGMENTS = [
  'echo',
  'version',
  'endpoints',
  'graph',
  'query',
  'builtins',
  'social',
  'q',
  'ECHO',
  'Echo',
  'Query',
  'requesttoken',
  'RequestToken',
  '%72equesttoken',
  'requesttoken;x',
  'gsql',
  'GSQL',
  'gsqlserver',
  '%67sql',
  '..',
  '.',
  '...',
  '%2e%2e',
  '%2E%2e',
  '%2e.',
  '.%2e',
  '%252e%252e',
  '%25',
  '%2f',
  '%2F',
  '%5c',
  '%5C',
  '\\',
  '..;',
  '..;x',
  '.;',
  '%00',
  '%0d%0a',
  '%0a',
  '%09',
  '%7f',
  '%zz',
  '%2',
  '%',
  '%c0%ae',
  '%C0%AF',
  '%e2%80%ae',
  'é',
  'J%C3%BCrgen',
  '%ef%bc%8f',
  '\uff0f',
  '\u2215',
  '%u002e',
  ';',
  ';jsessionid=x',
  ':',
  '@evil',
  'evil.com',
  '',
  ' ',
  '\t',
  '#',
  '?',
  'a b',
  'http:',
  '127.0.0.1:1',
];

const MOUNTS = [
  '/api',
  '/api',
  '/api',
  '/API',
  '/Api',
  '/api;x',
  '/api%2f',
  '/%61pi',
  '/apix',
  '',
  '//api',
  '/api/',
  '\\api',
  'http://evil',
  'http://evil/api',
  'http://127.0.0.1/api',
  '//evil/api',
  '*',
  '/auth/../api',
  '/./api',
];

const QUERIES = ['', '', '', '?x=1', '?x=..%2f..', '?a=%00', '?q=/requesttoken', '?#', '?a\\b', '?é'];

export const segment = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...TRICKY_SEGMENTS) },
  { weight: 1, arbitrary: fc.string({ maxLength: 6, unit: 'grapheme-ascii' }) },
  { weight: 1, arbitrary: fc.string({ maxLength: 3, unit: 'binary' }) },
  { weight: 1, arbitrary: fc.webSegment() },
);

/** A request target: mostly under /api, assembled from tricky segments, separators and a query. */
export const requestTarget = fc
  .tuple(
    fc.constantFrom(...MOUNTS),
    fc.array(fc.tuple(fc.constantFrom('/', '/', '/', '//', '\\', '%2f', ''), segment), { minLength: 0, maxLength: 6 }),
    fc.constantFrom(...QUERIES),
  )
  .map(([mount, parts, query]) => mount + parts.map(([sep, seg]) => sep + seg).join('') + query);

export const method = fc.constantFrom(
  'GET',
  'HEAD',
  'POST',
  'PUT',
  'PATCH',
  'DELETE',
  'OPTIONS',
  'get',
  'Post',
  'TRACE',
);

const PLAIN_SEGMENTS = [
  'echo',
  'version',
  'endpoints',
  'graph',
  'query',
  'builtins',
  'social',
  'vertices',
  'Person',
  'q',
  'x',
];

/** Mostly well-formed relay targets with one twist at most, so the accepting side of the guard is exercised too. */
export const plausibleTarget = fc
  .tuple(
    fc.constantFrom('echo', 'version', 'endpoints', 'graph/social', 'query/social', 'builtins/social'),
    fc.array(fc.constantFrom(...PLAIN_SEGMENTS), { minLength: 0, maxLength: 3 }),
    fc.option(fc.tuple(fc.nat({ max: 4 }), segment), { nil: undefined }),
    fc.constantFrom('', '', '/', ...QUERIES),
  )
  .map(([first, segments, twist, tail]) => {
    const parts = [first, ...segments];
    if (twist) parts.splice(Math.min(twist[0], parts.length), 0, twist[1]);
    return `/api/${parts.join('/')}${tail}`;
  });

/** Any request target, hostile or plausible. */
export const anyTarget = fc.oneof(requestTarget, plausibleTarget);
