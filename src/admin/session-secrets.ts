import { randomBytes } from 'node:crypto';
import type { Logger } from '../observability/logger.js';
import type { Audit } from '../observability/audit.js';
import type { SecretDrop, SecretDropStore } from '../store/secret-drops.js';
import { sealedAs } from '../crypto/crypto.js';
import type { Cipher } from '../store/types.js';
import type { SecretClient, AdminCredentials } from '@tigergraph-bff/client';
import { mapAdminError } from './admin-errors.js';
import { checkGraphAccess } from './graph-access.js';
import type { SecretDropperFn } from './secret-dropper.js';

/** Per-session secrets for password logins: created as the user at login, dropped when the session ends. */
export interface SessionSecrets {
  /** 3.x secrets belong to a graph, so a password login there must name one. */
  readonly graphRequired: boolean;
  /**
   * Creates a secret as `creds` (alias `tgbff_<random>`) and records its drop as due at `dueAt`, so it
   * cannot outlive the session even if nobody logs out. Failures are AppErrors.
   */
  create(creds: AdminCredentials, graph: string | null, dueAt: number): Promise<{ secret: string; drop: SecretDrop }>;
  /** Drops it now; if that fails it is left due at once for the sweeper. Never throws. */
  release(drop: SecretDrop): Promise<void>;
}

export interface SessionSecretsDeps {
  secrets: SecretClient;
  drops: SecretDropStore;
  dropSecret: SecretDropperFn;
  cipher: Cipher;
  graphRequired: boolean;
  now: () => number;
  logger: Logger;
  /** The audit trail: secret.created at login, secret.dropped when its session ends. */
  audit?: Audit;
}

export function createSessionSecrets(deps: SessionSecretsDeps): SessionSecrets {
  const { drops, logger } = deps;

  async function release(drop: SecretDrop): Promise<void> {
    const alias = drop.alias;
    try {
      const outcome = await deps.dropSecret(drop);
      if (outcome === 'unsealable')
        logger.error({ alias }, 'service-created secret cannot be unsealed any more; drop it by hand');
      await drops.remove(drop);
      deps.audit?.emit({ event: 'secret.dropped', alias, by: 'password_login' });
      return;
    } catch (err) {
      logger.warn({ err, alias }, 'dropping a service-created secret failed; the sweeper will retry');
    }
    await drops.reschedule(drop, deps.now()).catch((err: unknown) => {
      logger.warn({ err, alias }, 'could not reschedule a secret drop; it stays due at its session end');
    });
  }

  return {
    graphRequired: deps.graphRequired,
    async create(creds, graph, dueAt) {
      if (graph !== null) await checkGraphAccess(deps.secrets.gsql, creds, graph);
      const wanted = `tgbff_${randomBytes(8).toString('hex')}`;
      let made: { alias: string; secret: string };
      try {
        made = await deps.secrets.createSecret(creds, graph ?? '', wanted);
      } catch (err) {
        throw mapAdminError(err);
      }
      const drop: SecretDrop = {
        alias: made.alias,
        graph,
        sealedSecret: deps.cipher.encrypt(made.secret, sealedAs.secretDrop(made.alias)),
      };
      try {
        await drops.add(drop, dueAt);
      } catch (err) {
        // Without its drop on record the secret could outlive everything; do not keep it.
        await deps.dropSecret(drop).catch((dropErr: unknown) => {
          logger.error(
            { err: dropErr, alias: drop.alias },
            'a service-created secret could neither be recorded nor dropped',
          );
        });
        throw err;
      }
      logger.info({ alias: drop.alias, graph }, 'created a session secret for a password login');
      deps.audit?.emit({ event: 'secret.created', alias: drop.alias, by: 'password_login' });
      return { secret: made.secret, drop };
    },
    release,
  };
}
