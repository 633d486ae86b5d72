import http from 'node:http';
import net from 'node:net';

export interface RawAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
  /** The error code of a JSON error body, if it is one. */
  code?: string;
}

/**
 * One request over node:http on a fresh connection, with the request target sent exactly as given (fetch
 * and superagent would normalise `..`, `//` or `%61` away), so odd spellings reach the server. `to` is a
 * loopback port or a base URL.
 */
export function rawRequest(
  to: number | string,
  target: string,
  opts: { method?: string; headers?: http.OutgoingHttpHeaders; body?: string | Buffer } = {},
): Promise<RawAnswer> {
  const { hostname, port } = typeof to === 'number' ? { hostname: '127.0.0.1', port: String(to) } : new URL(to);
  // Node frames no body for DELETE unless told its length.
  const length = opts.body === undefined ? {} : { 'content-length': Buffer.byteLength(opts.body) };
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: hostname,
        port: Number(port),
        path: target,
        method: opts.method ?? 'GET',
        headers: { ...length, ...opts.headers },
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () => {
          const body = Buffer.concat(chunks).toString();
          const code = errorCodeOf(body);
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body, ...(code !== undefined && { code }) });
        });
      },
    );
    req.on('error', reject);
    req.end(opts.body);
  });
}

/** The `error.code` of a JSON error body, or undefined when the body is not the error shape. */
export function errorCodeOf(body: string): string | undefined {
  try {
    const code = (JSON.parse(body) as { error?: { code?: unknown } } | null)?.error?.code;
    return typeof code === 'string' ? code : undefined;
  } catch {
    return undefined;
  }
}

export interface RawRoundTrip {
  /** 0 when the connection closed with no answer. */
  status: number;
  /** Lower-cased names, every value kept. */
  headers: Map<string, string[]>;
  body: string;
}

/**
 * Below HTTP: writes the bytes exactly as given on a fresh connection (no client library to normalise the
 * target, refuse a header or frame the body) and reads the answer until the server closes it.
 */
export function rawRoundTrip(port: number, bytes: string | Buffer, timeoutMs = 5000): Promise<RawRoundTrip> {
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

function parseAnswer(buf: Buffer): RawRoundTrip {
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

export interface RawExchange {
  socket: net.Socket;
  /** Everything the server wrote back, as text. */
  received(): string;
  /** Resolves when the server closed the connection (or it was reset). */
  closed: Promise<void>;
  /** The status line's code once an answer started, else null. */
  status(): number | null;
}

/** A hand-written HTTP/1.1 exchange on a raw socket: for bodies sent slowly, cut, reset or malformed. */
export async function rawExchange(port: number, head: string): Promise<RawExchange> {
  const socket = net.connect(port, '127.0.0.1');
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  let text = '';
  socket.on('data', (c: Buffer) => (text += c.toString('latin1')));
  socket.on('error', () => undefined);
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  socket.write(head);
  return {
    socket,
    received: () => text,
    closed,
    status: () => {
      const m = /^HTTP\/1\.1 (\d{3})/.exec(text);
      return m ? Number(m[1]) : null;
    },
  };
}
