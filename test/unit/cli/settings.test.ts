import { CliError } from '../../../src/cli/cli-error.js';
import { resolveSettings } from '../../../src/cli/settings.js';

const cfg = { username: 'u', password: 'p' };

describe('connection settings', () => {
  it('when nothing is set, then the documented defaults apply', () => {
    expect(resolveSettings({}, {}, undefined)).toEqual({
      gsqlUrl: 'http://127.0.0.1:14240',
      restppUrl: 'http://127.0.0.1:9000',
      version: '3.9.3',
      graph: 'social',
      timeoutMs: 10000,
      host: '127.0.0.1',
      from: { gsqlUrl: 'default', restppUrl: 'default' },
    });
  });

  it('when flag, env and config all set a value, then the flag wins, then env, then config', () => {
    const config = { ...cfg, gsqlUrl: 'http://cfg:1', restppUrl: 'http://cfg:2', version: '3.5.0' };
    const env = {
      TG_GSQL_URL: 'http://env:1',
      TG_RESTPP_URL: 'http://env:2',
      TG_VERSION: '3.6.0',
      TG_GRAPH: 'envg',
      TG_TIMEOUT_MS: '5',
    };
    const flags = {
      'gsql-url': 'http://flag:1/',
      'restpp-url': 'http://flag:2',
      version: '3.4.0',
      graph: 'flagg',
      'timeout-ms': '7',
    };
    expect(resolveSettings(flags, env, config)).toMatchObject({
      gsqlUrl: 'http://flag:1',
      restppUrl: 'http://flag:2',
      version: '3.4.0',
      graph: 'flagg',
      timeoutMs: 7,
      host: 'flag',
    });
    expect(resolveSettings({}, env, config)).toMatchObject({
      gsqlUrl: 'http://env:1',
      version: '3.6.0',
      graph: 'envg',
      timeoutMs: 5,
    });
    expect(resolveSettings({}, {}, config)).toMatchObject({
      gsqlUrl: 'http://cfg:1',
      restppUrl: 'http://cfg:2',
      version: '3.5.0',
    });
    expect(resolveSettings(flags, env, config).from).toEqual({ gsqlUrl: '--gsql-url', restppUrl: '--restpp-url' });
    expect(resolveSettings({}, env, config).from).toEqual({ gsqlUrl: 'TG_GSQL_URL', restppUrl: 'TG_RESTPP_URL' });
    expect(resolveSettings({}, {}, config).from).toEqual({ gsqlUrl: 'config file', restppUrl: 'config file' });
  });

  it('when the config file names a host, then both default URLs point at it', () => {
    expect(resolveSettings({}, {}, { ...cfg, host: 'tg.internal' })).toMatchObject({
      gsqlUrl: 'http://tg.internal:14240',
      restppUrl: 'http://tg.internal:9000',
      host: 'tg.internal',
    });
  });

  it('when the version is 4.1 or later, then the data server defaults to /restpp on the admin port', () => {
    expect(resolveSettings({ version: '4.1.0', 'gsql-url': 'http://h:14240' }, {}, undefined).restppUrl).toBe(
      'http://h:14240/restpp',
    );
    expect(resolveSettings({ version: '4.0.2' }, {}, undefined).restppUrl).toBe('http://127.0.0.1:9000');
  });

  it.each([
    [{ 'gsql-url': 'not a url' }, {}, '--gsql-url is not a URL'],
    [{}, { TG_RESTPP_URL: 'ftp://h' }, 'TG_RESTPP_URL must be http(s)'],
    [{ version: 'latest' }, {}, "--version must be a TigerGraph version like 3.9.3 or 4.1.0, got 'latest'"],
    [{}, { TG_VERSION: 'banana' }, "TG_VERSION must be a TigerGraph version like 3.9.3 or 4.1.0, got 'banana'"],
    [{}, { TG_GRAPH: 'a b' }, "TG_GRAPH must be a plain name, got 'a b'"],
    [{}, { TG_TIMEOUT_MS: '-1' }, 'TG_TIMEOUT_MS must be a positive whole number'],
    [{ graph: 'a b' }, {}, "--graph must be a plain name, got 'a b'"],
  ])('when a value is malformed (%j %j), then a usage error names where it came from', (flags, env, message) => {
    expect(() => resolveSettings(flags, env, undefined)).toThrow(CliError);
    expect(() => resolveSettings(flags, env, undefined)).toThrow(message);
  });
});
