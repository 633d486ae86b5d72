import { sealedAs } from '../crypto/crypto.js';
import type { Cipher } from '../store/types.js';
import type { SecretDrop } from '../store/secret-drops.js';
import { TigerGraphError, type SecretApi } from '@tigergraph-bff/client';

/**
 * - dropped: the admin server dropped it now.
 * - gone: it no longer exists (dropped by logout, an admin, or with its user), which counts as done.
 * - unsealable: the key that sealed it was retired, so it can never be dropped by the service.
 */
export type DropOutcome = 'dropped' | 'gone' | 'unsealable';

/** The GSQL convention for logging in with a secret instead of a password (GSQL shell `-u __GSQL__secret`). */
export const SECRET_LOGIN_USER = '__GSQL__secret';

/**
 * Drops a service-created secret by logging in as the secret itself: the password that created it is
 * never stored. Transport and protocol failures throw (TigerGraphError), so the caller can retry later.
 */
export function createSecretDropper(deps: { secrets: SecretApi; cipher: Cipher }) {
  return async function dropSecret(drop: SecretDrop): Promise<DropOutcome> {
    let secret: string;
    try {
      // Drops recorded before 0.2.0 are unbound; they must still be dropped, and opening one gains nothing.
      secret = deps.cipher.decrypt(drop.sealedSecret, sealedAs.secretDrop(drop.alias), { acceptUnbound: true });
    } catch {
      return 'unsealable';
    }
    try {
      await deps.secrets.dropSecret({ username: SECRET_LOGIN_USER, password: secret }, drop.graph ?? '', drop.alias);
      return 'dropped';
    } catch (err) {
      // A secret that cannot log in any more no longer exists: the admin server answers 401 for it.
      if (err instanceof TigerGraphError && (err.kind === 'secret_not_found' || err.kind === 'invalid_credentials'))
        return 'gone';
      throw err;
    }
  };
}

export type SecretDropperFn = ReturnType<typeof createSecretDropper>;
