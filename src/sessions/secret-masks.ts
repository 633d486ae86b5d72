import { maskSecret } from '@tigergraph-bff/client';
import type { CredentialIds } from '../crypto/credential-id.js';
import type { CredentialSessions } from '../store/types.js';

/** The most secrets one masked form keeps on record (the newest logins); more are collisions beyond any use. */
export const MASK_CEILING = 64;

/**
 * Which secrets' sessions a masked secret (`abc****xyz`, what SHOW SECRET shows of it) may name: the operator's
 * switch by alias on TigerGraph versions without the REST secrets API (docs/admin.md, "By alias").
 *
 * Each secret login records its credential id under a keyed fingerprint of its masked form: an HMAC under the
 * service's credential-id key (`masked` kind), so neither the secret nor its six shown characters are stored,
 * and the fingerprint cannot be tested offline. Six characters collide: a fingerprint may name several
 * secrets, and the caller says so. The record is the per-credential store's (one sorted set under the
 * fingerprint's hash tag, `<prefix>creds:{<fingerprint>}`, credential ids by their newest login), expiring
 * an absolute timeout after its newest login and holding at most MASK_CEILING ids.
 */
export interface SecretMasks {
  /** Records a secret login's credential under its masked form (a secret of 6 characters or fewer: nothing). */
  note(secret: string, credential: string, at: number): Promise<void>;
  /** The credential ids of the secrets on record whose masked form is `masked`, newest login last. */
  credentialsOf(masked: string): Promise<string[]>;
}

export function secretMasks(deps: {
  records: CredentialSessions;
  credentialIds: CredentialIds;
  /** The longest a session lives (SESSION_ABSOLUTE_TIMEOUT): a record outlives its newest login by this. */
  ttlMs: number;
}): SecretMasks {
  const limits = { ttlMs: deps.ttlMs, cap: MASK_CEILING, ceiling: MASK_CEILING };
  const fingerprint = (masked: string) => deps.credentialIds('masked', masked);
  return {
    async note(secret, credential, at) {
      const masked = maskSecret(secret);
      if (masked === '****') return;
      await deps.records.add(fingerprint(masked), credential, at, limits);
    },
    async credentialsOf(masked) {
      return (await deps.records.list(fingerprint(masked))).map((e) => e.sid);
    },
  };
}
