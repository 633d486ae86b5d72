import { describe, expect, test } from '@jest/globals';
import { isSameOriginPath } from '../../../src/config/same-origin-path.js';
import { loadConfig } from '../../../src/config.js';

describe('same-origin paths (return_to, OIDC_POST_LOGIN_PATH)', () => {
  test.each(['/', '/app', '/app?x=1', '/a/b#c', '/%7Euser', '/caf%C3%A9'])('when %s, then it is accepted', (p) => {
    expect(isSameOriginPath(p)).toBe(true);
  });

  test.each([
    '',
    'app',
    '//evil.example',
    '/\\evil.example',
    '\\\\evil.example',
    'https://evil.example/',
    'javascript:alert(1)',
    '/%2F%2Fevil.example',
    '%2F%2Fevil.example',
    '/%5Cevil.example',
    '/%252F%252Fevil.example',
    '/%25252F%25252Fevil',
    '/\tevil',
    '/a\nb',
    '/%0d%0aSet-Cookie:x',
    '/%E0%A4%A',
  ])('when %j, then it is refused', (p) => {
    expect(isSameOriginPath(p)).toBe(false);
  });
});

describe('OIDC settings', () => {
  const base = { NODE_ENV: 'test', COOKIE_SECURE: 'false' };
  const full = {
    OIDC_ISSUER: 'https://idp.example/realms/x/',
    OIDC_CLIENT_ID: 'bff',
    OIDC_CLIENT_SECRET: 's3cret-value',
    OIDC_REDIRECT_URI: 'https://bff.example/auth/oidc/callback',
    OIDC_AUDIENCE: 'urn:tigergraph:prod',
  };

  test('when OIDC_ISSUER is unset, then single sign-on is off', () => {
    expect(loadConfig(base).oidc).toBeUndefined();
  });

  test('when OIDC_ISSUER is set with the client registration, then the settings keep the issuer exactly and default the rest', () => {
    expect(loadConfig({ ...base, ...full }).oidc).toEqual({
      issuer: 'https://idp.example/realms/x/',
      clientId: 'bff',
      clientSecret: 's3cret-value',
      redirectUri: 'https://bff.example/auth/oidc/callback',
      scopes: 'openid profile offline_access',
      audience: 'urn:tigergraph:prod',
      postLoginPath: '/',
      refreshBeforeSeconds: 60,
      connections: 16,
    });
  });

  test.each(['OIDC_CLIENT_ID', 'OIDC_CLIENT_SECRET', 'OIDC_REDIRECT_URI', 'OIDC_AUDIENCE'])(
    'when OIDC_ISSUER is set without %s, then the start fails naming it',
    (key) => {
      expect(() => loadConfig({ ...base, ...full, [key]: '' })).toThrow(
        new RegExp(`${key}: is required when OIDC_ISSUER is set`),
      );
    },
  );

  test('when OIDC_AUDIENCE is missing, then the message names the TigerGraph setting that must match', () => {
    expect(() => loadConfig({ ...base, ...full, OIDC_AUDIENCE: '' })).toThrow(
      "OIDC_AUDIENCE: is required when OIDC_ISSUER is set without OIDC_CREDENTIAL_MAP: the resource TigerGraph's Security.JWT.Audience names (set both, the same)",
    );
  });

  test('when OIDC_AUDIENCE is the client id (the aud of every ID token), then the start fails', () => {
    expect(() => loadConfig({ ...base, ...full, OIDC_AUDIENCE: 'bff' })).toThrow(
      /OIDC_AUDIENCE: must differ from OIDC_CLIENT_ID/,
    );
  });

  test('when the post-login path or scopes are unsafe, then the start fails naming the key and never the secret', () => {
    let message = '';
    try {
      loadConfig({ ...base, ...full, OIDC_POST_LOGIN_PATH: '//evil.example', OIDC_SCOPES: 'profile' });
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toMatch(/OIDC_POST_LOGIN_PATH: must be a path on this origin/);
    expect(message).toMatch(/OIDC_SCOPES: must include openid/);
    expect(message).not.toContain('s3cret-value');
  });

  test('when in production, then the issuer and redirect URI must be https', () => {
    const prod = {
      NODE_ENV: 'production',
      TG_RESTPP_URL: 'http://tg:9000',
      REDIS_URL: 'redis://r:6379',
      SESSION_SECRET: 'AQBsNpyKHNxR5En9K1YMmTw3y9MC_Gdn0VOFCmIZ_gjZxr28',
      SESSION_ENCRYPTION_KEYS: 'k1:lokNLBEwutawgBgZJ0MPtswLlSG6Bsf4WPnKs70nSVg=',
    };
    expect(() => loadConfig({ ...prod, ...full, OIDC_ISSUER: 'http://idp.example' })).toThrow(
      /OIDC_ISSUER: must be https in production/,
    );
  });
});
