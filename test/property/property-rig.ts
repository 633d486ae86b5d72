import { randomBytes } from 'node:crypto';
import http, { type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import net from 'node:net';
import { PassThrough } from 'node:stream';
import { Redis } from 'ioredis';
import { loadConfig, type Config } from '../../src/config.js';
import { createLogger } from '../../src/observability/logger.js';
import { createService, type Service } from '../../src/service.js';
import { startSimulator } from '../../src/simulator/index.js';
import type { SimulatorHandle } from '../../src/simulator/types.js';
import { deleteKeysWithPrefix } from '../helpers/redis-prefix.js';

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
  const sim = await startSimulator({ ...(options.now && { now: options.now }) });
  const tapped: Tapped[] = [];
  const inject: Array<[string, string]> = [];
  const tap = http.createServer((req, res) => {
    const headers: Array<[string, string]> = [];
    for (let i = 0; i < req.rawHeaders.length; i += 2) headers.push([req.rawHeaders[i]!, req.rawHeaders[i + 1]!]);
    tapped.push({ method: req.method ?? '', url: req.url ?? '', headers });
    const bearer = String(req.headers.authorization ?? '').replace(/^Bearer /, '');
    const { host: _host, ...forwarded } = req.headers;
    const onward = http.request(sim.restppUrl + (req.url ?? '/'), { method: req.method, headers: forwarded, agent: false }, (answer) => {
      const out: string[] = [...answer.rawHeaders];
      for (const [name, value] of inject) out.push(name, value.replaceAll('{token}', bearer));
      res.writeHead(answer.statusCode ?? 502, out);
      answer.pipe(res);
    });
    onward.on('error', () => res.writeHead(502).end());
    req.pipe(onward);
  });
  await new Promise<void>((resolve) => tap.listen(0, '127.0.0.1', resolve));
  const upstreamUrl = `http://127.0.0.1:${(tap.address() as AddressInfo).port}`;
  const prefix = `tgbff-test:property:${randomBytes(4).toString('hex')}:`;
  const redisUrl = options.redisUrl ?? 'redis://127.0.0.1:6379';
  const config = loadConfig({
    NODE_ENV: 'test',
    TG_RESTPP_URL: upstreamUrl,
    TG_GSQL_URL: sim.gsqlUrl,
    TG_VERSION: sim.version,
    REDIS_URL: redisUrl,
    REDIS_PREFIX: prefix,
    COOKIE_SECURE: 'false',
    LOG_LEVEL: 'debug',
    // Thousands of generated logins from one address and a few secrets: the budgets and the session cap
    // have tests of their own (test/integration/hostile/session-pileup.test.ts), here they would only turn
    // later inputs into 429s and ended sessions.
    LOGIN_ADDRESS_BUDGET: '1000000',
    LOGIN_CREDENTIAL_BUDGET: '1000000',
    SESSIONS_PER_CREDENTIAL: '10000',
    ...options.env,
  });
  let logText = '';
  const sink = new PassThrough();
  sink.on('data', (chunk: Buffer) => (logText += chunk.toString()));
  const service = await createService({
    config,
    upstream: { restppUrl: upstreamUrl, gsqlUrl: sim.gsqlUrl, version: sim.version },
    logger: createLogger({ level: config.logLevel, destination: sink }),
    ...(options.now && { now: options.now }),
  });
  const server: Server = service.app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  const redis = new Redis(redisUrl);
  return {
    sim,
    service,
    config,
    port: (server.address() as AddressInfo).port,
    upstreamUrl,
    tapped,
    inject,
    prefix,
    logs: () => logText,
    redis,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await service.close();
      tap.closeAllConnections();
      await new Promise<void>((resolve) => tap.close(() => resolve()));
      await sim.close();
      await deleteKeysWithPrefix(redis, prefix).catch(() => undefined);
      redis.disconnect();
    },
  };
}

export interface RawAnswer {
  status: number;
  /** Lower-cased names, every value kept. */
  headers: Map<string, string[]>;
  body: string;
}

/**
 * Sends bytes exactly as given (no client library to normalise the target or refuse a header) on a fresh
 * connection and reads the answer until the server closes it. A connection closed with no answer is status 0.
 */
export function rawRequest(port: number, bytes: string | Buffer, timeoutMs = 5000): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.setTimeout(timeoutMs, () => socket.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', reject);
    socket.on('close', () => resolve(parseAnswer(Buffer.concat(chunks))));
    socket.write(bytes); // not end(): a half-closed client gets no answer from a Node server
  });
}

function parseAnswer(buf: Buffer): RawAnswer {
  const text = buf.toString('latin1');
  const split = text.indexOf('\r\n\r\n');
  if (split < 0) return { status: 0, headers: new Map(), body: '' };
  const [statusLine, ...lines] = text.slice(0, split).split('\r\n');
  const headers = new Map<string, string[]>();
  for (const line of lines) {
    const colon = line.indexOf(':');
    const name = line.slice(0, colon).trim().toLowerCase();
    headers.set(name, [...(headers.get(name) ?? []), line.slice(colon + 1).trim()]);
  }
  let body = buf.subarray(Buffer.byteLength(text.slice(0, split + 4), 'latin1'));
  if (headers.get('transfer-encoding')?.includes('chunked')) body = dechunk(body);
  return { status: Number(statusLine!.split(' ')[1]), headers, body: body.toString('utf8') };
}

function dechunk(body: Buffer): Buffer {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const eol = body.indexOf('\r\n', at);
    if (eol < 0) break;
    const size = parseInt(body.subarray(at, eol).toString('latin1'), 16);
    if (!(size > 0)) break;
    parts.push(body.subarray(eol + 2, eol + 2 + size));
    at = eol + 2 + size + 2;
  }
  return Buffer.concat(parts);
}

/** The JSON error code of an answer, or undefined when the body is not the error shape. */
export function errorCode(answer: RawAnswer): string | undefined {
  try {
    const parsed = JSON.parse(answer.body) as { error?: { code?: unknown } };
    return typeof parsed.error?.code === 'string' ? parsed.error.code : undefined;
  } catch {
    return undefined;
  }
}

/** Logs in over the real socket with `secret`; the cookie pair to send back. */
export async function loginCookie(rig: PropertyRig, secret: string): Promise<string> {
  const body = JSON.stringify({ secret, graph: 'social' });
  const answer = await rawRequest(
    rig.port,
    `POST /auth/login HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Requested-With: XMLHttpRequest\r\nContent-Type: application/json\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
  if (answer.status !== 200) throw new Error(`login failed: ${answer.status} ${answer.body}`);
  return answer.headers.get('set-cookie')![0]!.split(';')[0]!;
}

/** Every bearer token the data server was sent. */
export function bearers(rig: PropertyRig): string[] {
  return rig.tapped.flatMap((t) => t.headers.filter(([n]) => n.toLowerCase() === 'authorization').map(([, v]) => v.replace(/^Bearer /, '')));
}
