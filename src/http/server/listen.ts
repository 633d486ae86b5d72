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

/** Resolves with the port actually bound (PORT=0 picks one); a failed bind rejects, failing the start. */
export async function listen(server: Server, port: number, host: string): Promise<number> {
  server.listen(port, host);
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  const address = server.address();
  return typeof address === 'object' && address ? address.port : port;
}
