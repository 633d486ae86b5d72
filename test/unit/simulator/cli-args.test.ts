import { describe, expect, it } from '@jest/globals';
import { parseSimArgs } from '../../../src/simulator/cli-args.js';

describe('simulator CLI flags', () => {
  it('when no flags are given, then it runs 3.9.3 on the real TigerGraph ports with auth on', () => {
    expect(parseSimArgs([])).toEqual({
      kind: 'run',
      configPath: undefined,
      options: {
        version: '3.9.3',
        host: '127.0.0.1',
        restppPort: 9000,
        gsqlPort: 14240,
        authEnabled: true,
        authFailureStatus: 401,
        latencyMs: 0,
        omitTokenExpiration: false,
      },
    });
  });

  it('when every flag is given, then each lands in the options', () => {
    const parsed = parseSimArgs([
      '--version',
      '4.1.0',
      '--host',
      '0.0.0.0',
      '--restpp-port',
      '0',
      '--gsql-port',
      '0',
      '--auth-disabled',
      '--auth-failure-status',
      '403',
      '--latency-ms',
      '5',
      '--omit-token-expiration',
      '--config',
      'x.json',
    ]);
    expect(parsed).toEqual({
      kind: 'run',
      configPath: 'x.json',
      options: {
        version: '4.1.0',
        host: '0.0.0.0',
        restppPort: 0,
        gsqlPort: 0,
        authEnabled: false,
        authFailureStatus: 403,
        latencyMs: 5,
        omitTokenExpiration: true,
      },
    });
  });

  it('when the JWT flags are given, then they become the jwt option as given (@file paths are read at start)', () => {
    const parsed = parseSimArgs([
      '--version',
      '4.1.0',
      '--jwt-hmac-secret',
      'shh',
      '--jwt-rsa-public-key',
      '@/keys/jwks.json',
      '--jwt-issuer',
      'https://idp',
      '--jwt-audience',
      'bff',
    ]);
    expect(parsed.kind === 'run' && parsed.options.jwt).toEqual({
      hmacSecret: 'shh',
      rsaPublicKey: '@/keys/jwks.json',
      issuer: 'https://idp',
      audience: 'bff',
    });
    const none = parseSimArgs([]);
    expect(none.kind === 'run' && 'jwt' in none.options).toBe(false);
  });

  it.each([
    [['--jwt-audience', 'bff'], /need --jwt-hmac-secret or --jwt-rsa-public-key/],
    [['--bogus'], /Unknown option/],
    [['--version', 'banana'], /Unsupported TigerGraph version/],
    [['--auth-failure-status', '500'], /401 or 403/],
    [['--restpp-port', '70000'], /port number/],
    [['--restpp-port', '9000', '--gsql-port', '9000'], /must differ/],
    [['--latency-ms=-1'], /non-negative/],
    [['--latency-ms', 'slow'], /non-negative/],
    [['positional'], /positional/i],
  ])('when the flags are %j, then an error names the problem', (argv, pattern) => {
    const parsed = parseSimArgs(argv);
    expect(parsed.kind).toBe('error');
    expect(parsed.kind === 'error' && parsed.message).toMatch(pattern);
  });

  it('when --help is given, then help is asked for', () => {
    expect(parseSimArgs(['--help'])).toEqual({ kind: 'help' });
  });
});
