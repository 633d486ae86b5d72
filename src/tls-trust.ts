import { rootCertificates } from 'node:tls';

/**
 * TLS options that trust a private CA (PEM) besides the public roots. Node's `ca` option replaces the
 * default trust store, so a CA given alone would make every publicly signed server untrusted.
 */
export function trustAlso(ca: string): { ca: string[] } {
  return { ca: [...rootCertificates, ca] };
}
