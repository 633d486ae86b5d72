import type { SessionSecrets } from '../../admin/session-secrets.js';
import type { Logger } from '../../observability/logger.js';
import type { SecretDrop } from '../../store/secret-drops.js';
import type { TokenStore } from '../../store/types.js';
import type { TokenBroker } from '../../tokens/token-broker.js';
import type { TgSession } from '../session-data.js';
import type { KindStrategy } from '../strategy.js';
import { revokeToken } from './secret.js';

/** The drop entry login recorded for a service-created secret (sessions from before 0.2.0 have no `secretDrop`). */
export const dropOf = (tg: TgSession): SecretDrop => ({
  alias: tg.secretAlias ?? '',
  graph: tg.graph,
  sealedSecret: tg.secretDrop ?? tg.secret,
});

/**
 * A password login: the service created a `tgbff_` secret as the user (admin/session-secrets.ts), so the
 * session's end drops it too, after the token (deleting the token needs the secret), however it ends.
 */
export function passwordStrategy(deps: {
  broker: TokenBroker;
  tokens: TokenStore;
  logger: Logger;
  /** Absent when PASSWORD_LOGIN was turned off since: the secret is then left to the secret sweeper's list. */
  passwords: SessionSecrets | undefined;
}): KindStrategy {
  return {
    kind: 'password',
    broker: deps.broker,
    refusalEnds: false,
    fields: (_sid, login) =>
      login.kind === 'password'
        ? { username: login.username, secretAlias: login.drop.alias, secretDrop: login.drop.sealedSecret }
        : {},
    index: async () => undefined,
    async revoke(ending) {
      // The sweeper's revoke rejects on failure: the secret is dropped on its retry, after the token.
      const deleted = await revokeToken(deps, ending);
      const drop = ending.entry.drop ?? (ending.tg && dropOf(ending.tg));
      // Never throws: a failed drop is left due at once for the secret sweeper.
      if (drop && deps.passwords) await deps.passwords.release(drop);
      return deleted;
    },
    async abandon(_sid, login) {
      if (login.kind !== 'password') return;
      await deps.broker.discard(login.secret, login.grant).catch((err: unknown) => {
        deps.logger.warn({ err: { code: (err as { code?: unknown }).code } }, 'failed login: token not deleted');
      });
      await deps.passwords?.release(login.drop);
    },
    view: (tg): Record<string, string> => (tg.username !== undefined ? { username: tg.username } : {}),
  };
}
