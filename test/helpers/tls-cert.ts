import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
