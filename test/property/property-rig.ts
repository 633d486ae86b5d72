import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Redis } from 'ioredis';
import type { Config } from '../../src/config.js';
import type { Service } from '../../src/service.js';
import type { SimulatorHandle } from '../../src/simulator/types.js';
import { startRig } from '../helpers/app-rig.js';
import { errorCodeOf, rawRoundTrip, type RawRoundTrip } from '../helpers/raw-request.js';

/** What the data server's side of the wire saw: the raw request target and header lines, before any parsing. */
export interface Tapped {
  method: string;
  url: string;
  /** Header names as sent (any case) with their values, duplicates kept. */
  headers: Array<[string, string]>;
}

/**
 * The real service (createService, in process, on a real socket) with a counting tap between it and the
 * simulator: every request the service sends the data server is recorded raw, and the tap adds the
 * answer headers a test asks for (hostile Set-Cookie spellings, hop-by-hop names, the bearer token echoed).
 */
export interface PropertyRig {
  sim: SimulatorHandle;
  service: Service;
  config: Config;
  /** The service's public port. */
  port: number;
  /** The data server URL the service was configured with (the tap's). */
  upstreamUrl: string;
  tapped: Tapped[];
  /** Answer headers the tap adds; `{token}` is replaced by the bearer token of the request. */
  inject: Array<[string, string]>;
  prefix: string;
  /** The service's log lines and its audit trail, as text (the leak scans read both). */
  logs(): string;
  redis: Redis;
  close(): Promise<void>;
}

export interface PropertyRigOptions {
  env?: Record<string, string>;
  now?: () => number;
  /** A Redis URL of the test's own (default: the shared one, under a unique prefix). */
  redisUrl?: string;
}

export async function startPropertyRig(options: PropertyRigOptions = {}): Promise<PropertyRig> {
  const tapped: Tapped[] = [];
  const inject: Array<[string, string]> = [];
  const rig = await startRig({
    store: options.redisUrl ?? 'redis',
    label: 'property',
    env: {
      // Thousands of generated logins from one address and a few secrets: the budgets and the session cap
      // have tests of their own (test/integration/hostile/session-pileup.test.ts), here they would only turn
      // later inputs into 429s and ended sessions.
      LOGIN_ADDRESS_BUDGET: '1000000',
      LOGIN_CREDENTIAL_BUDGET: '1000000',
      SESSIONS_PER_CREDENTIAL: '10000',
      ...options.env,
    },
    ...(options.now && { now: options.now }),
    dataServer: (sim) => startTap(sim.restppUrl, tapped, inject),
  });
  const port = Number(new URL(await rig.listen()).port);
  return {
    sim: rig.sim,
    service: rig.service,
    config: rig.config,
    port,
    upstreamUrl: rig.restppUrl,
    tapped,
    inject,
    prefix: rig.prefix,
    logs: () => rig.logs() + rig.audit(),
    redis: rig.redis(),
    close: () => rig.close(),
  };
}

/** The counting tap: records each request raw, forwards it to the data server, adds `inject` to the answer. */
async function startTap(
  target: string,
  tapped: Tapped[],
  inject: Array<[string, string]>,
): Promise<{ url: string; close(): Promise<void> }> {
  const tap = http.createServer((req, res) => {
    const headers: Array<[string, string]> = [];
    for (let i = 0; i < req.rawHeaders.length; i += 2) headers.push([req.rawHeaders[i]!, req.rawHeaders[i + 1]!]);
    tapped.push({ method: req.method ?? '', url: req.url ?? '', headers });
    const bearer = String(req.headers.authorization ?? '').replace(/^Bearer /, '');
    const { host: _host, ...forwarded } = req.headers;
    const onward = http.request(
      target + (req.url ?? '/'),
      { method: req.method, headers: forwarded, agent: false },
      (answer) => {
        const out: string[] = [...answer.rawHeaders];
        for (const [name, value] of inject) out.push(name, value.replaceAll('{token}', bearer));
        res.writeHead(answer.statusCode ?? 502, out);
        answer.pipe(res);
      },
    );
    onward.on('error', () => res.writeHead(502).end());
    req.pipe(onward);
  });
  await new Promise<void>((resolve) => tap.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(tap.address() as AddressInfo).port}`,
    async close() {
      tap.closeAllConnections();
      await new Promise<void>((resolve) => tap.close(() => resolve()));
    },
  };
}

/** The JSON error code of an answer, or undefined when the body is not the error shape. */
export const errorCode = (answer: RawRoundTrip): string | undefined => errorCodeOf(answer.body);

/** Logs in over the real socket with `secret`; the cookie pair to send back. */
export async function loginCookie(rig: PropertyRig, secret: string): Promise<string> {
  const body = JSON.stringify({ secret, graph: 'social' });
  const answer = await rawRoundTrip(
    rig.port,
    `POST /auth/login HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Requested-With: XMLHttpRequest\r\nContent-Type: application/json\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
  if (answer.status !== 200) throw new Error(`login failed: ${answer.status} ${answer.body}`);
  return answer.headers.get('set-cookie')![0]!.split(';')[0]!;
}

/** Every bearer token the data server was sent. */
export function bearers(rig: PropertyRig): string[] {
  return rig.tapped.flatMap((t) =>
    t.headers.filter(([n]) => n.toLowerCase() === 'authorization').map(([, v]) => v.replace(/^Bearer /, '')),
  );
}
