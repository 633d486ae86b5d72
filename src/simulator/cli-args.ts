import { parseArgs } from 'node:util';
import type { SimulatorOptions } from './types.js';
import { parseVersion } from './version.js';

export const SIM_USAGE = `Usage: npm run sim -- [flags]   (or: node dist/simulator/cli.js [flags])

A local TigerGraph stand-in: RESTPP (data) and GSQL (admin) servers speaking TigerGraph's wire protocol.
Starts like a fresh TigerGraph: user tigergraph/tigergraph, graph "social" with demo data, RESTPP auth on.

  --version <x.y.z>            TigerGraph version to mimic: 3.4.x, 3.5-4.0, 4.1+ (default 3.9.3)
  --host <addr>                address to bind (default 127.0.0.1)
  --restpp-port <n>            RESTPP port (default 9000; 0 = any free port)
  --gsql-port <n>              GSQL port (default 14240; 0 = any free port)
  --auth-disabled              RESTPP auth off: /requesttoken answers 404, data endpoints are open
  --auth-failure-status <n>    HTTP status of REST-10016/10019 refusals: 401 or 403 (default 401)
  --jwt-hmac-secret <v|@file>  3.10+: verify external HS256/384/512 JWTs with this secret
  --jwt-rsa-public-key <v|@f>  3.10+: verify external RS256/384/512 JWTs: PEM, JWK or JWKS (e.g. @jwks.json)
  --jwt-issuer <iss>           with a JWT key: the iss claim must equal this
  --jwt-audience <aud>         with a JWT key: the aud claim must contain this (case-sensitive)
  --latency-ms <n>             fixed latency added to every answer (default 0)
  --omit-token-expiration      3.6+: leave "expiration" out of token answers
  --config <file.json>         extra {"users":[…],"graphs":[…],"secrets":[…],"jwt":{…},"authFailureStatus":403}
  --help                       this text
`;

export type CliParse =
  | { kind: 'help' }
  | { kind: 'error'; message: string }
  | { kind: 'run'; options: SimulatorOptions; configPath: string | undefined };

const port = (name: string, raw: string | undefined, fallback: number): number => {
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0 || n > 65535)
    throw new Error(`--${name} must be a port number (0-65535), got "${raw}"`);
  return n;
};

/** Pure: argv → what to do, so every flag rule is testable without starting servers. */
export function parseSimArgs(argv: string[]): CliParse {
  try {
    const { values } = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: {
        version: { type: 'string' },
        host: { type: 'string' },
        'restpp-port': { type: 'string' },
        'gsql-port': { type: 'string' },
        'auth-disabled': { type: 'boolean' },
        'auth-failure-status': { type: 'string' },
        'latency-ms': { type: 'string' },
        'jwt-hmac-secret': { type: 'string' },
        'jwt-rsa-public-key': { type: 'string' },
        'jwt-issuer': { type: 'string' },
        'jwt-audience': { type: 'string' },
        'omit-token-expiration': { type: 'boolean' },
        config: { type: 'string' },
        help: { type: 'boolean' },
      },
    });
    if (values.help) return { kind: 'help' };
    const version = values.version ?? '3.9.3';
    parseVersion(version);
    const status = values['auth-failure-status'] ?? '401';
    if (status !== '401' && status !== '403')
      throw new Error(`--auth-failure-status must be 401 or 403, got "${status}"`);
    const latency = Number(values['latency-ms'] ?? 0);
    if (!Number.isFinite(latency) || latency < 0)
      throw new Error(`--latency-ms must be a non-negative number, got "${values['latency-ms']}"`);
    const restppPort = port('restpp-port', values['restpp-port'], 9000);
    const gsqlPort = port('gsql-port', values['gsql-port'], 14240);
    if (restppPort !== 0 && restppPort === gsqlPort) throw new Error('--restpp-port and --gsql-port must differ');
    const jwt = {
      ...(values['jwt-hmac-secret'] !== undefined && { hmacSecret: values['jwt-hmac-secret'] }),
      ...(values['jwt-rsa-public-key'] !== undefined && { rsaPublicKey: values['jwt-rsa-public-key'] }),
      ...(values['jwt-issuer'] !== undefined && { issuer: values['jwt-issuer'] }),
      ...(values['jwt-audience'] !== undefined && { audience: values['jwt-audience'] }),
    };
    if (Object.keys(jwt).length > 0 && jwt.hmacSecret === undefined && jwt.rsaPublicKey === undefined) {
      throw new Error('--jwt-issuer and --jwt-audience need --jwt-hmac-secret or --jwt-rsa-public-key');
    }
    return {
      kind: 'run',
      configPath: values.config,
      options: {
        version,
        host: values.host ?? '127.0.0.1',
        restppPort,
        gsqlPort,
        authEnabled: !values['auth-disabled'],
        authFailureStatus: status === '403' ? 403 : 401,
        latencyMs: latency,
        omitTokenExpiration: values['omit-token-expiration'] ?? false,
        ...(Object.keys(jwt).length > 0 && { jwt }),
      },
    };
  } catch (err) {
    return { kind: 'error', message: err instanceof Error ? err.message : String(err) };
  }
}
