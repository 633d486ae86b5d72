import { createConnection, createServer, type Server, type Socket } from 'node:net';

/**
 * What the proxy does with traffic, switchable at runtime. A switch applies to bytes from then on, on open
 * connections too (a frozen server freezes its open sockets, not only new ones).
 * - pass: forward both ways.
 * - delay: forward both ways, each chunk held back `ms`.
 * - blackhole: accept, never forward, never answer (held bytes are dropped).
 * - reset: RST every open socket and every new one (a crashed peer or a killed connection).
 * - closeAfter: forward until `bytes` have come back from the target on a connection, then RST both sides
 *   (a connection cut mid-answer).
 */
export type FaultMode =
  | { kind: 'pass' }
  | { kind: 'delay'; ms: number }
  | { kind: 'blackhole' }
  | { kind: 'reset' }
  | { kind: 'closeAfter'; bytes: number };

export interface FaultProxy {
  port: number;
  url(scheme: string): string;
  set(mode: FaultMode): void;
  /**
   * `mode` for the connections whose client has sent bytes matching `sent` (in its first 4 KiB, read as
   * latin1: a Redis client's `CLIENT SETNAME`, say), from their next chunk on; every other connection keeps
   * `set`'s mode. One rule at a time: a call replaces it, `undefined` removes it. The bytes of one direction
   * are not reordered only while a connection's mode stays the same: switching a delayed connection to
   * `pass` lets new bytes overtake held ones.
   */
  setWhere(rule: { sent: RegExp; mode: FaultMode } | undefined): void;
  /** Connections open right now (client side). */
  open(): number;
  /** Connections accepted since start. */
  accepted(): number;
  close(): Promise<void>;
}

interface Pair {
  client: Socket;
  upstream: Socket;
  /** Bytes that came back from the target on this connection. */
  back: number;
  /** What the client sent first (up to SENT_KEPT bytes, latin1), for `setWhere`. */
  sent: string;
}

const SENT_KEPT = 4096;

/** A loopback TCP proxy in front of one target, for faults no real server can be asked to make on cue. */
export async function startFaultProxy(
  target: { host?: string; port: number },
  initial: FaultMode = { kind: 'pass' },
): Promise<FaultProxy> {
  let mode: FaultMode = initial;
  let rule: { sent: RegExp; mode: FaultMode } | undefined;
  let accepted = 0;
  const pairs = new Set<Pair>();
  // Delayed chunks are timers; close() must clear them so a test never leaves one behind.
  const timers = new Set<NodeJS.Timeout>();

  // An RST where the socket can still send one. libuv refuses to reset a socket already shut down
  // (`end()` when the other side ended): Node then emits the error and never closes the handle, which kept
  // the test's worker alive until jest force-exited it. Such a socket, or one still connecting, is
  // destroyed plainly.
  const cut = (pair: Pair): void => {
    for (const socket of [pair.client, pair.upstream]) {
      if (socket.connecting || socket.writableEnded) socket.destroy();
      else socket.resetAndDestroy();
    }
  };

  const modeOf = (pair: Pair): FaultMode => (rule !== undefined && rule.sent.test(pair.sent) ? rule.mode : mode);

  const relay = (pair: Pair, from: Socket, to: Socket, back: boolean): void => {
    from.on('data', (chunk: Buffer) => {
      if (!back && pair.sent.length < SENT_KEPT) pair.sent += chunk.toString('latin1', 0, SENT_KEPT - pair.sent.length);
      const m = modeOf(pair);
      if (m.kind === 'blackhole') return;
      if (m.kind === 'reset') return cut(pair);
      if (back && m.kind === 'closeAfter') {
        const room = m.bytes - pair.back;
        pair.back += chunk.length;
        if (room <= 0) return cut(pair);
        if (chunk.length >= room) {
          to.write(chunk.subarray(0, room), () => cut(pair));
          return;
        }
      } else if (back) pair.back += chunk.length;
      if (m.kind === 'delay') {
        const timer = setTimeout(() => {
          timers.delete(timer);
          if (!to.destroyed) to.write(chunk);
        }, m.ms);
        timers.add(timer);
        return;
      }
      to.write(chunk);
    });
    from.on('end', () => {
      const m = modeOf(pair);
      if (m.kind !== 'delay') return void to.end();
      const timer = setTimeout(() => {
        timers.delete(timer);
        to.end();
      }, m.ms);
      timers.add(timer);
    });
  };

  const server: Server = createServer((client) => {
    accepted += 1;
    const upstream = createConnection({ host: target.host ?? '127.0.0.1', port: target.port });
    const pair: Pair = { client, upstream, back: 0, sent: '' };
    pairs.add(pair);
    const forget = (): void => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on('error', forget).on('close', forget);
    upstream.on('error', () => client.resetAndDestroy()).on('close', forget);
    if (mode.kind === 'reset') return cut(pair);
    relay(pair, client, upstream, false);
    relay(pair, upstream, client, true);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };

  return {
    port,
    url: (scheme) => `${scheme}://127.0.0.1:${port}`,
    set(next) {
      mode = next;
      if (next.kind === 'reset') for (const pair of pairs) cut(pair);
    },
    setWhere(next) {
      rule = next;
      if (next?.mode.kind === 'reset') for (const pair of pairs) if (next.sent.test(pair.sent)) cut(pair);
    },
    open: () => pairs.size,
    accepted: () => accepted,
    async close() {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      for (const pair of pairs) cut(pair);
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * Accepts connections and never answers a byte: a black-holed address as a client sees it once its connect
 * succeeded (a frozen server, a firewall that lets the handshake through and drops the rest). Unlike a fault
 * proxy in `blackhole` mode it needs no target.
 */
export async function startSilentServer(): Promise<{ port: number; accepted(): number; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  let accepted = 0;
  const server: Server = createServer((socket) => {
    accepted += 1;
    sockets.add(socket);
    socket.on('error', () => undefined).on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as { port: number }).port,
    accepted: () => accepted,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
