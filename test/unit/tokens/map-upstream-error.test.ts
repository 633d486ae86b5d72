import { describe, expect, it } from '@jest/globals';
import { AppError } from '../../../src/errors.js';
import { TigerGraphError, type TigerGraphErrorKind } from '../../../packages/client/src/errors.js';
import { endsSession, mapUpstreamError } from '../../../src/tokens/map-upstream-error.js';

const SECRET = 'abcdefghijklmnopqrstuvwxyz012345';

function mapped(kind: TigerGraphErrorKind, phase: 'login' | 'session'): AppError {
  const out = mapUpstreamError(new TigerGraphError(kind, `failed for ${SECRET}`), phase);
  if (!(out instanceof AppError)) throw new Error(`expected an AppError for ${kind}`);
  return out;
}

describe('mapUpstreamError', () => {
  it.each([
    ['invalid_credentials', 'login', 401, 'invalid_credentials'],
    ['invalid_credentials', 'session', 401, 'session_expired'],
    ['auth_disabled', 'session', 502, 'upstream_auth_disabled'],
    ['timeout', 'session', 504, 'upstream_timeout'],
    ['unreachable', 'login', 502, 'upstream_unavailable'],
    ['protocol', 'session', 502, 'upstream_error'],
  ] as const)('when a %s error happens at %s, then it becomes %i %s', (kind, phase, status, code) => {
    const err = mapped(kind, phase);
    expect(err.status).toBe(status);
    expect(err.code).toBe(code);
    expect(err.cause).toBeInstanceOf(TigerGraphError);
  });

  it("when the token call went to the admin server (4.1+), then a transport fault is that server's", () => {
    const err = mapUpstreamError(new TigerGraphError('unreachable', 'connect ECONNREFUSED'), 'login', 'admin');
    expect(err).toMatchObject({ code: 'upstream_unavailable', dependency: 'tigergraph_admin' });
    expect((err as AppError).message).toBe('The admin server is unavailable');
    expect(mapped('unreachable', 'login')).toMatchObject({ dependency: 'tigergraph' });
  });

  it('when authentication is disabled, then the message says so', () => {
    expect(mapped('auth_disabled', 'login').message).toMatch(/authentication is disabled/i);
  });

  it('when the upstream message holds a secret, then the public message does not', () => {
    for (const kind of ['invalid_credentials', 'timeout', 'unreachable', 'protocol', 'auth_disabled'] as const) {
      expect(mapped(kind, 'session').message).not.toContain(SECRET);
    }
  });

  it('when a store error (AppError) or a foreign error is given, then it passes through unchanged', () => {
    const storeErr = new AppError('store_unavailable', 'Storage is unavailable');
    const foreign = new TypeError('bug');
    expect(mapUpstreamError(storeErr, 'session')).toBe(storeErr);
    expect(mapUpstreamError(foreign, 'session')).toBe(foreign);
  });

  it('when the error is session_expired, then it ends the session; other errors do not', () => {
    expect(endsSession(mapped('invalid_credentials', 'session'))).toBe(true);
    expect(endsSession(mapped('timeout', 'session'))).toBe(false);
    expect(endsSession(new Error('x'))).toBe(false);
  });
});
