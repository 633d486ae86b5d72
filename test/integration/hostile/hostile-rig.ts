import http, { type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { request } from 'undici';
import { startSimulator } from '../../../src/simulator/index.js';
import type { SimulatorHandle } from '../../../src/simulator/types.js';
import { uniquePrefix } from '../../helpers/redis-prefix.js';
import { dropPrefix, processEnv } from './process-env.js';
import { startServiceProcess, type ServiceProcess } from '../../helpers/service-process.js';
import { login } from '../multi-instance/cluster.js';
import { scrape } from '../observability/prom-text.js';

/** What the stand-in data server saw of one relayed request. */
export interface Seen {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  /** Body bytes received, counted as they arrive (also for requests that never end). */
  bytes: number;
}

/**
 * A small counting stand-in for the data server on loopback: token calls go to a real simulator (so the
 * BFF mints real tokens over the real wire), everything else is answered here. `/query/social/hang`
 * never answers (until close), `/query/social/drip` answers at once and then sends a byte every 200 ms
 * for as long as the connection lasts (a slow but live data server), both to hold pooled connections;
 * every other path answers 200 once its body ended.
 */
export interface StandIn {
  url: string;
  sim: SimulatorHandle;
  seen: Seen[];
  /** Requests the stand-in is holding open right now (hang, or a body still arriving). */
  open(): number;
  close(): Promise<void>;
}

export async function startStandIn(): Promise<StandIn> {
  const sim = await startSimulator({});
  const seen: Seen[] = [];
  let open = 0;
  const server = http.createServer((req, res) => {
    if (req.url?.startsWith('/requesttoken')) return void forward(sim.restppUrl, req, res);
    const entry: Seen = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, bytes: 0 };
    seen.push(entry);
    open++;
    res.once('close', () => open--);
    req.on('data', (chunk: Buffer) => (entry.bytes += chunk.length));
    req.on('error', () => undefined);
    req.on('end', () => {
      if (req.url?.startsWith('/query/social/hang')) return; // held until the BFF gives up or close()
      if (req.url?.startsWith('/query/social/drip')) return drip(res);
      if (req.url?.startsWith('/query/social/headers')) return hostileHeaders(res);
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ error: false, message: '', results: [{ bytes: entry.bytes }] }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    sim,
    seen,
    open: () => open,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await sim.close();
    },
  };
}

/**
 * Headers a compromised or misbehaving data server (or a proxy in front of it) could send to take over the
 * BFF's origin in the browser, beside ones that may pass. `/query/social/headers` answers with all of them.
 */
export const HOSTILE_ANSWER_HEADERS: Readonly<Record<string, string | string[]>> = {
  'set-cookie': ['tgbff=forged; Path=/', '__Host-tgbff=forged; Path=/; Secure'],
  'clear-site-data': '"cookies", "storage", "cache"',
  refresh: '0; url=https://evil.example/',
  location: 'https://evil.example/',
  'alt-svc': 'h2="evil.example:443"; ma=86400',
  'www-authenticate': 'Basic realm="TigerGraph"',
  'proxy-authenticate': 'Basic realm="proxy"',
  'strict-transport-security': 'max-age=0',
  server: 'nginx/1.22.1 (TigerGraph)',
  link: '<https://evil.example/x.css>; rel=stylesheet',
  'content-security-policy': "default-src *; script-src * 'unsafe-inline'",
  'access-control-allow-origin': '*',
  'access-control-allow-credentials': 'true',
  'x-frame-options': 'ALLOWALL',
  'report-to': '{"group":"x","max_age":1,"endpoints":[{"url":"https://evil.example/r"}]}',
  'x-powered-by': 'Express',
  // may pass
  'content-type': 'application/json',
  'cache-control': 'no-cache',
  'content-disposition': 'inline',
};

function hostileHeaders(res: ServerResponse): void {
  for (const [name, value] of Object.entries(HOSTILE_ANSWER_HEADERS)) res.setHeader(name, value);
  res.writeHead(200);
  res.end(JSON.stringify({ error: false, message: '', results: [] }));
}

function drip(res: ServerResponse): void {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.write('[');
  const timer = setInterval(() => res.write(' '), 200);
  res.once('close', () => clearInterval(timer));
}

async function forward(base: string, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const headers = Object.fromEntries(
    Object.entries(req.headers).filter(([k]) => !['host', 'connection', 'content-length'].includes(k)),
  ) as Record<string, string>;
  const answer = await request(`${base}${req.url ?? ''}`, {
    method: req.method as 'POST',
    headers,
    body: Buffer.concat(chunks),
  });
  res.writeHead(answer.statusCode, { 'content-type': String(answer.headers['content-type'] ?? 'application/json') });
  res.end(Buffer.from(await answer.body.arrayBuffer()));
}

export interface HostileRig {
  standIn: StandIn;
  bff: ServiceProcess;
  /** Logs a new session in (each call is another browser) and returns its cookie pair. */
  login(): Promise<string>;
  close(): Promise<void>;
}

/** A real service process (dist/main.js) on the machine's Redis with its own prefix, in front of a stand-in. */
export async function startHostileRig(label: string, env: Record<string, string> = {}): Promise<HostileRig> {
  const standIn = await startStandIn();
  const prefix = uniquePrefix(label);
  const secret = standIn.sim.createSecret({ alias: `hostile_${randomBytes(3).toString('hex')}` }).value;
  let bff: ServiceProcess;
  try {
    bff = await startServiceProcess(
      {
        ...processEnv(prefix),
        TG_RESTPP_URL: standIn.url,
        TG_VERSION: standIn.sim.version,
        LOGIN_RATE_LIMIT: '1000',
        ...env,
      },
      30_000,
    );
  } catch (err) {
    await standIn.close();
    throw err;
  }
  return {
    standIn,
    bff,
    login: () => login(bff.url, secret),
    async close() {
      await bff.kill();
      await standIn.close();
      await dropPrefix(prefix);
    },
  };
}

export const CSRF_HEADER = 'x-requested-with: XMLHttpRequest';

// rawExchange lives in test/helpers/raw-request.ts; re-exported for the hostile tests that import it from here.
export { rawExchange, type RawExchange } from '../../helpers/raw-request.js';

/** Request head for a chunked POST through the relay as a logged-in browser. */
export function chunkedHead(path: string, cookie: string, extra = ''): string {
  return `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nCookie: ${cookie}\r\n${CSRF_HEADER}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n${extra}\r\n`;
}

export const chunk = (data: Buffer | string): string => {
  const b = typeof data === 'string' ? Buffer.from(data) : data;
  return `${b.length.toString(16)}\r\n${b.toString('latin1')}\r\n`;
};

export interface Timed<T> {
  value: T;
  ms: number;
}

export async function timed<T>(work: Promise<T>): Promise<Timed<T>> {
  const started = performance.now();
  const value = await work;
  return { value, ms: performance.now() - started };
}

/** One GET through the relay as a browser would send it; the body read to the end. */
export async function relayGet(
  base: string,
  path: string,
  cookie: string,
): Promise<{ status: number; code?: string; retryAfter?: string }> {
  const res = await request(`${base}${path}`, { headers: { cookie, 'x-requested-with': 'XMLHttpRequest' } });
  const text = await res.body.text();
  const code = res.statusCode >= 400 ? (JSON.parse(text) as { error?: { code?: string } }).error?.code : undefined;
  const retryAfter = res.headers['retry-after'];
  return { status: res.statusCode, ...(code && { code }), ...(typeof retryAfter === 'string' && { retryAfter }) };
}

/** The process is alive and its log shows nothing escaped to the safety net. */
export function assertNoEscape(bff: ServiceProcess): void {
  if (bff.proc.exitCode !== null || bff.proc.signalCode !== null) {
    throw new Error(
      `the service process died (${bff.proc.exitCode ?? bff.proc.signalCode}):\n${bff.output().slice(-3000)}`,
    );
  }
  if (/uncaught exception|unhandled promise rejection/.test(bff.output())) {
    throw new Error(`an error escaped to the safety net:\n${bff.output().slice(-3000)}`);
  }
}

/**
 * Requests the service process has in flight right now (its tgbff_active_requests gauge: up on arrival, down
 * when the answer closes), read from its metrics listener, which the gauge does not count.
 */
export async function inFlight(bff: ServiceProcess): Promise<number> {
  if (!bff.metricsUrl) throw new Error('the service process has no metrics listener');
  return (await scrape(bff.metricsUrl)).value('tgbff_active_requests');
}
