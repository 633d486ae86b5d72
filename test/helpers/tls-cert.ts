import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer } from 'node:tls';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface TlsCert {
  /** PEM certificate; self-signed, so it is also the CA a client must trust. */
  certFile: string;
  keyFile: string;
  remove(): void;
}

/** A throwaway self-signed certificate for 127.0.0.1 (needs the openssl command, as .ci/run installs). */
export async function makeLoopbackCert(): Promise<TlsCert> {
  const dir = mkdtempSync(join(tmpdir(), 'tls-cert-'));
  const certFile = join(dir, 'cert.pem');
  const keyFile = join(dir, 'key.pem');
  await run(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      '1',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
      '-keyout',
      keyFile,
      '-out',
      certFile,
    ],
    { timeout: 30_000 },
  );
  return { certFile, keyFile, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * A TLS server on loopback with a throwaway self-signed certificate that no client trusts unless told (a
 * private CA missing from REDIS_CA_FILE, TG_CA_FILE or NODE_EXTRA_CA_CERTS), saying nothing after a handshake.
 */
export async function startUntrustedTlsServer(): Promise<{ port: number; cert: TlsCert; close(): Promise<void> }> {
  const cert = await makeLoopbackCert();
  const sockets = new Set<Socket>();
  const server = createServer({ key: readFileSync(cert.keyFile), cert: readFileSync(cert.certFile) }, (socket) => {
    sockets.add(socket);
    socket.on('error', () => undefined).on('close', () => sockets.delete(socket));
  });
  // The client's refusal of the certificate ends each handshake with an alert: expected, not a failure here.
  server.on('tlsClientError', () => undefined);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    cert,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      cert.remove();
    },
  };
}
