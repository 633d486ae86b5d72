import { ExpiringMap } from '../../cache/expiring-map.js';
import { sealedAs } from '../../crypto/crypto.js';
import type { Cipher, TokenStore } from '../types.js';

interface Stored {
  sealed: string;
  expiresAt: number;
  version: number;
  replacedAt?: number;
  renewWith?: string;
}

/** Encrypts like the Redis store, so a heap dump of a dev instance shows no tokens either. */
export function createMemoryTokenStore(deps: { cipher: Cipher }): TokenStore & { close(): void } {
  const { cipher } = deps;
  const map = new ExpiringMap<Stored>();
  const read = (sid: string): string | undefined => {
    const stored = map.get(sid);
    return stored && cipher.decrypt(stored.sealed, sealedAs.token(sid));
  };
  return {
    async get(sid) {
      const stored = map.get(sid);
      if (!stored) return null;
      const { expiresAt, version, replacedAt, renewWith } = stored;
      return {
        token: cipher.decrypt(stored.sealed, sealedAs.token(sid)),
        expiresAt,
        version,
        ...(replacedAt !== undefined && { replacedAt }),
        ...(renewWith !== undefined && { renewWith: cipher.decrypt(renewWith, sealedAs.renewal(sid)) }),
      };
    },
    async set(sid, state, ttlMs) {
      const { expiresAt, version, replacedAt, renewWith } = state;
      const sealed = cipher.encrypt(state.token, sealedAs.token(sid));
      const renewal = renewWith === undefined ? undefined : cipher.encrypt(renewWith, sealedAs.renewal(sid));
      map.set(
        sid,
        {
          sealed,
          expiresAt,
          version,
          ...(replacedAt !== undefined && { replacedAt }),
          ...(renewal !== undefined && { renewWith: renewal }),
        },
        ttlMs,
      );
      return true;
    },
    async deleteIfToken(sid, token) {
      if (read(sid) !== token) return false;
      return map.delete(sid);
    },
    async delete(sid) {
      map.delete(sid);
    },
    close: () => map.close(),
  };
}
