import { describe, expect, it } from '@jest/globals';
import { DEFAULT_RELAY_ALLOW, isAllowed, parseRelayAllow } from '../../../src/relay/allowlist.js';

describe('parseRelayAllow / isAllowed', () => {
  const rules = parseRelayAllow('GET /graph/, POST /query/,/echo,* /builtins,DELETE /graph/social/vertices/');

  it.each([
    ['GET', '/graph'],
    ['GET', '/graph/social/vertices/User'],
    ['HEAD', '/graph/social'],
    ['POST', '/query/social/q'],
    ['GET', '/echo'],
    ['HEAD', '/echo/x'],
    ['PATCH', '/builtins/social'],
    ['DELETE', '/graph/social/vertices/User/u1'],
  ])('when %s %s matches a rule on a segment boundary, then it is allowed', (method, path) => {
    expect(isAllowed(rules, method, path)).toBe(true);
  });

  it.each([
    ['GET', '/graphx/social'],
    ['GET', '/echoes'],
    ['POST', '/echo'],
    ['POST', '/graph/social'],
    ['GET', '/query'],
    ['DELETE', '/graph/social/edges/x'],
    ['GET', '/Graph/social'],
    ['OPTIONS', '/builtins'],
    ['GET', '/'],
  ])('when %s %s matches no rule, then it is refused', (method, path) => {
    expect(isAllowed(rules, method, path)).toBe(false);
  });

  it('when the default is parsed, then reads and queries are open and writes are not', () => {
    const defaults = parseRelayAllow(DEFAULT_RELAY_ALLOW);
    expect(isAllowed(defaults, 'GET', '/version')).toBe(true);
    expect(isAllowed(defaults, 'POST', '/query/social/q')).toBe(true);
    expect(isAllowed(defaults, 'POST', '/builtins/social')).toBe(true);
    expect(isAllowed(defaults, 'POST', '/graph/social')).toBe(false);
    expect(isAllowed(defaults, 'DELETE', '/graph/social/vertices/User/u1')).toBe(false);
  });

  it.each([
    ['GET graph/', 'GET graph/'],
    ['FETCH /x', 'FETCH /x'],
    ['OPTIONS /x', 'OPTIONS /x'],
    ['GET /a/../b', 'GET /a/../b'],
    ['GET //host/', 'GET //host/'],
    ['GET /a%2fb', 'GET /a%2fb'],
    ['GET /a\\b', 'GET /a\\b'],
    ['GET /a?b', 'GET /a?b'],
    ['POST /requesttoken', 'POST /requesttoken'],
    ['GET /GSQL/v1', 'GET /GSQL/v1'],
    ['GET /echo,GET /x y', 'GET /x y'],
  ])('when the spec is %j, then it throws naming the entry', (spec, entry) => {
    expect(() => parseRelayAllow(spec)).toThrow(`"${entry}"`);
  });

  it('when the spec is empty, then it throws', () => {
    expect(() => parseRelayAllow(' , ')).toThrow('RELAY_ALLOW');
  });
});
