import type { Server } from 'node:http';
import { isLoopbackHost } from '../pipeline/loopback-secure.js';

/** The address to open: a wildcard or loopback bind is reached as localhost, which browsers treat as secure. */
export function browserUrl(host: string | undefined, port: number): string {
  const wildcardOrLoopback =
    host === undefined || host === '' || host === '0.0.0.0' || host === '::' || isLoopbackHost(host);
  const name = wildcardOrLoopback ? 'localhost' : host.includes(':') ? `[${host}]` : host;
  return `http://${name}:${port}/`;
}

export function startBanner(url: string, demoSecret: string | undefined): string {
  const lines = [`  tigergraph-bff is listening: open ${url} in a browser`];
  // The one deliberate print of a secret: a throwaway simulator secret, so a developer can log in.
  if (demoSecret !== undefined) lines.push(`  Demo secret for the built-in simulator (graph "social"): ${demoSecret}`);
  return `\n${lines.join('\n')}\n\n`;
}

/**
 * Resolves with the port actually bound (PORT=0 picks one); a failed bind rejects, failing the start, with
 * a message naming the setting and the fix (two instances on one host clash on METRICS_PORT first).
 */
export async function listen(
  server: Server,
  port: number,
  host: string,
  setting: 'PORT' | 'METRICS_PORT',
): Promise<number> {
  server.listen(port, host);
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('listening', resolve);
      server.once('error', reject);
    });
  } catch (err) {
    throw new Error(bindFailure(err, setting, port, host), { cause: err });
  }
  const address = server.address();
  return typeof address === 'object' && address ? address.port : port;
}

function bindFailure(err: unknown, setting: 'PORT' | 'METRICS_PORT', port: number, host: string): string {
  const code = (err as NodeJS.ErrnoException).code;
  const where = `${setting}=${port} (on ${host})`;
  const otherPort =
    setting === 'METRICS_PORT' ? `set METRICS_PORT to a free port, or METRICS_PORT=off` : `set PORT to a free port`;
  if (code === 'EADDRINUSE')
    return `${where}: the port is already in use (another instance on this host?); ${otherPort}`;
  if (code === 'EACCES') return `${where}: not allowed to bind this port (below 1024 needs privileges); ${otherPort}`;
  if (code === 'EADDRNOTAVAIL')
    return `${where}: no such local address; set ${setting === 'PORT' ? 'HOST' : 'METRICS_HOST'} to an address of this host`;
  return `${where}: cannot listen: ${err instanceof Error ? err.message : String(err)}`;
}

/** What the server really bound, as `host:port` (`[::]:8080` for IPv6), for the listening line. */
export function boundAddress(server: Server): string | undefined {
  const address = server.address();
  if (typeof address !== 'object' || !address) return undefined;
  return address.family === 'IPv6' ? `[${address.address}]:${address.port}` : `${address.address}:${address.port}`;
}
