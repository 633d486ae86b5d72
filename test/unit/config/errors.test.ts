import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../../src/config.js';
import { configErrorOf, keysOf } from './helpers.js';

const BAD_VALUES: [string, string][] = [
  ['PORT', '80a'],
  ['PORT', '70000'],
  ['TG_RESTPP_URL', 'ftp://tg.example.com'],
  ['TG_RESTPP_URL', 'not a url'],
  ['TG_GSQL_URL', 'https://user:pw@tg.example.com'],
  ['TG_VERSION', '4'],
  ['TG_VERSION', 'latest'],
  ['TG_TOKEN_LIFETIME', '0'],
  ['TOKEN_REFRESH_BEFORE', '-1'],
  ['TG_CA_FILE', '/nonexistent/ca.pem'],
  ['REDIS_URL', 'http://127.0.0.1:6379'],
  ['REDIS_SENTINELS', 'host-without-port'],
  ['REDIS_CLUSTER_NODES', 'a:1,b:99999'],
  ['REDIS_TLS', 'maybe'],
  ['REDIS_COMMAND_TIMEOUT_MS', '1.5'],
  ['SESSION_SECRET', 'short'],
  ['SESSION_ENCRYPTION_KEYS', 'k1'],
  ['SESSION_ENCRYPTION_KEYS', `k1:${Buffer.alloc(16).toString('base64')}`],
  ['SESSION_IDLE_TIMEOUT', 'soon'],
  ['SESSION_ABSOLUTE_TIMEOUT', '0'],
  ['COOKIE_SECURE', 'on'],
  ['COOKIE_NAME', 'bad name'],
  ['ALLOWED_ORIGINS', 'https://a.example.com/path'],
  ['ALLOWED_ORIGINS', 'a.example.com'],
  ['ALLOWED_ORIGINS', 'null'],
  ['ALLOWED_ORIGINS', 'https://a.example.com?x=1'],
  ['ALLOWED_ORIGINS', 'https://a.example.com?'],
  ['ALLOWED_ORIGINS', 'https://user@a.example.com'],
  ['ALLOWED_ORIGINS', 'https://a.example.com/.'],
  ['ALLOWED_ORIGINS', 'ftp://a.example.com'],
  ['METRICS_PORT', '70000'],
  ['METRICS_PORT', 'none'],
  ['CSRF_HEADER', 'x requested'],
  ['UPSTREAM_TIMEOUT_MS', 'x'],
  ['MAX_BODY_BYTES', '0'],
  ['PASSWORD_LOGIN', 'TRUE!'],
  ['ADMIN_ROUTES', '2'],
  ['TRUST_PROXY', 'proxy.example.com'],
  ['LOG_LEVEL', 'verbose'],
  ['SHUTDOWN_TIMEOUT_MS', 'never'],
  ['LOGIN_RATE_LIMIT', '0'],
  ['LOGIN_RATE_WINDOW', '-5'],
  ['RELAY_ALLOW', 'GET /requesttoken'],
  ['RELAY_ALLOW', 'FETCH /graph/'],
  ['RELAY_ALLOW', ' , '],
];

describe('config errors', () => {
  it.each(BAD_VALUES)('when %s is %j, then the error names that key', (key, value) => {
    const err = configErrorOf({ [key]: value });
    expect(keysOf(err)).toEqual([key]);
    expect(err.message).toMatch(new RegExp(`^  ${key}: \\S`, 'm'));
  });

  it('when several keys are bad at once, then every one is listed', () => {
    const err = configErrorOf({
      PORT: 'x',
      LOG_LEVEL: 'loud',
      COOKIE_SECURE: 'sure',
      TOKEN_REFRESH_BEFORE: '10',
      TG_TOKEN_LIFETIME: '5',
    });
    expect(keysOf(err).sort()).toEqual(['COOKIE_SECURE', 'LOG_LEVEL', 'PORT', 'TOKEN_REFRESH_BEFORE']);
    expect(err.message.split('\n')).toHaveLength(5);
  });

  it('when secrets or passwords are invalid, then the message never contains their values', () => {
    const secret = 'super-secret-session-value';
    const key = `k1:${Buffer.from('sixteen byte key').toString('base64')}`;
    const err = configErrorOf({
      SESSION_SECRET: secret,
      SESSION_ENCRYPTION_KEYS: key,
      REDIS_URL: 'http://user:hunter2-password@h:1',
      REDIS_PASSWORD: 'another-pass-word',
      REDIS_SENTINEL_PASSWORD: 'sentinel-pass-word',
    });
    expect(keysOf(err)).toEqual(expect.arrayContaining(['SESSION_SECRET', 'SESSION_ENCRYPTION_KEYS', 'REDIS_URL']));
    for (const value of [secret, 'sixteen', 'hunter2', 'another-pass', 'sentinel-pass', key.slice(3)]) {
      expect(err.message).not.toContain(value);
    }
  });

  it('when RELAY_ALLOW is bad beside other bad keys, then it is reported with them, naming the entry (issue 23)', () => {
    const err = configErrorOf({ PORT: 'x', RELAY_ALLOW: 'GET /graph/,GET graph' });
    expect(keysOf(err).sort()).toEqual(['PORT', 'RELAY_ALLOW']);
    expect(err.message).toMatch(/^ {2}RELAY_ALLOW: entry "GET graph" is invalid: /m);
  });

  it('when METRICS_PORT is PORT, then it is rejected: metrics never share the public listener', () => {
    expect(keysOf(configErrorOf({ PORT: '8080', METRICS_PORT: '8080' }))).toEqual(['METRICS_PORT']);
  });

  it('when TG_TOKEN_LIFETIME is longer than SESSION_ABSOLUTE_TIMEOUT, then it is refused at start-up', () => {
    expect(keysOf(configErrorOf({ TG_TOKEN_LIFETIME: '2592000', SESSION_ABSOLUTE_TIMEOUT: '43200' }))).toEqual([
      'TG_TOKEN_LIFETIME',
    ]);
  });

  it('when TG_TOKEN_LIFETIME is unset, then tokens last SESSION_ABSOLUTE_TIMEOUT and the refresh margin fits in it', () => {
    const config = loadConfig({
      SESSION_IDLE_TIMEOUT: '60',
      SESSION_ABSOLUTE_TIMEOUT: '300',
      TOKEN_REFRESH_BEFORE: '600',
    });
    expect(config.tigergraph).toMatchObject({ tokenLifetimeSeconds: 300, refreshBeforeSeconds: 150 });
  });

  it('when TOKEN_REFRESH_BEFORE is not below the lifetime, then it is rejected', () => {
    expect(keysOf(configErrorOf({ TG_TOKEN_LIFETIME: '600', TOKEN_REFRESH_BEFORE: '600' }))).toEqual([
      'TOKEN_REFRESH_BEFORE',
    ]);
  });

  it('when RELAY_FORWARD_HEADERS names a credential, framing or override header, then it is rejected by name', () => {
    for (const name of [
      'Authorization',
      'cookie',
      'X-HTTP-Method-Override',
      'x-original-url',
      'transfer-encoding',
      'x-forwarded-for',
    ]) {
      const err = configErrorOf({ RELAY_FORWARD_HEADERS: `gsql-replica, ${name}` });
      expect(keysOf(err)).toEqual(['RELAY_FORWARD_HEADERS']);
      expect(err.message).toContain(`must not name ${name.toLowerCase()}`);
    }
    expect(loadConfig({ RELAY_FORWARD_HEADERS: 'GSQL-Replica, x-tenant' }).relayForwardHeaders).toEqual([
      'gsql-replica',
      'x-tenant',
    ]);
  });

  it('when RELAY_RESPONSE_HEADERS names a cookie, credential, navigating, origin-clearing or BFF-owned header, then it is rejected by name', () => {
    for (const name of [
      'Set-Cookie',
      'Clear-Site-Data',
      'Refresh',
      'Location',
      'Alt-Svc',
      'WWW-Authenticate',
      'Strict-Transport-Security',
      'Connection',
      'Transfer-Encoding',
      'Link',
      'Content-Security-Policy',
      'Access-Control-Allow-Origin',
      'Proxy-Authenticate',
    ]) {
      const err = configErrorOf({ RELAY_RESPONSE_HEADERS: `x-tg-elapsed, ${name}` });
      expect(keysOf(err)).toEqual(['RELAY_RESPONSE_HEADERS']);
      expect(err.message).toContain(`must not name ${name.toLowerCase()}: the relay never passes it to the browser`);
    }
    expect(loadConfig({ RELAY_RESPONSE_HEADERS: 'X-TG-Elapsed, Server' }).relayResponseHeaders).toEqual([
      'x-tg-elapsed',
      'server',
    ]);
    expect(loadConfig({}).relayResponseHeaders).toEqual([]);
  });

  it('when HEADERS_TIMEOUT_MS is longer than REQUEST_TIMEOUT_MS, then it is rejected (Node would refuse to listen)', () => {
    expect(keysOf(configErrorOf({ HEADERS_TIMEOUT_MS: '20000', REQUEST_TIMEOUT_MS: '10000' }))).toEqual([
      'HEADERS_TIMEOUT_MS',
    ]);
  });

  it('when the absolute session timeout is shorter than the idle one, then it is rejected', () => {
    const err = configErrorOf({ SESSION_IDLE_TIMEOUT: '100', SESSION_ABSOLUTE_TIMEOUT: '99' });
    expect(keysOf(err)).toEqual(['SESSION_ABSOLUTE_TIMEOUT']);
  });

  it('when TG_VERSION is 4.1 or later with a data server but no admin server URL, then TG_GSQL_URL is named', () => {
    const err = configErrorOf({ TG_VERSION: '4.2.1', TG_RESTPP_URL: 'https://tg.example.com/restpp' });
    expect(keysOf(err)).toEqual(['TG_GSQL_URL']);
  });

  it('when password login is on with a data server but no admin server URL, then TG_GSQL_URL is named', () => {
    const err = configErrorOf({ PASSWORD_LOGIN: 'true', TG_RESTPP_URL: 'http://tg:9000' });
    expect(keysOf(err)).toEqual(['TG_GSQL_URL']);
  });

  it('when a __Host- cookie name is combined with COOKIE_SECURE=false, then COOKIE_NAME is named', () => {
    expect(keysOf(configErrorOf({ COOKIE_SECURE: 'false', COOKIE_NAME: '__Host-x' }))).toEqual(['COOKIE_NAME']);
  });

  it('when encryption key ids repeat, then SESSION_ENCRYPTION_KEYS is named', () => {
    const k = Buffer.alloc(32).toString('base64');
    expect(keysOf(configErrorOf({ SESSION_ENCRYPTION_KEYS: `a:${k},a:${k}` }))).toEqual(['SESSION_ENCRYPTION_KEYS']);
  });

  it('when TG_CA_FILE is readable but holds no certificate, then it is named; with one, its text is kept', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tgbff-config-'));
    writeFileSync(join(dir, 'empty.pem'), 'nothing here');
    const pem = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';
    writeFileSync(join(dir, 'ca.pem'), pem);
    expect(keysOf(configErrorOf({ TG_CA_FILE: join(dir, 'empty.pem') }))).toEqual(['TG_CA_FILE']);
    expect(loadConfig({ TG_CA_FILE: join(dir, 'ca.pem') }).tigergraph.ca).toBe(pem);
  });
});
