import type { Logger } from '../../observability/logger.js';
import type { TokenStore } from '../../store/types.js';
import type { TokenBroker } from '../../tokens/token-broker.js';
import { clearCredential, type Ending, type KindStrategy, type Login } from '../strategy.js';

const codeOf = (err: unknown): unknown => (err as { code?: unknown }).code;

/** Deletes a TigerGraph session's token upstream and its state; the sweeper's call keeps the state on failure. */
export async function revokeToken(
  deps: { broker: TokenBroker; tokens: TokenStore; logger: Logger },
  ending: Ending,
): Promise<boolean> {
  if (ending.retry) return deps.broker.revoke(ending.sid, clearCredential(ending.credential), { keepOnFailure: true });
  try {
    return await deps.broker.revoke(ending.sid, clearCredential(ending.credential));
  } catch (err) {
    // The session ends regardless; a token left upstream expires on its own.
    deps.logger.warn({ err, code: codeOf(err) }, 'token delete at session end failed');
    await deps.tokens.delete(ending.sid).catch(() => undefined);
    return false;
  }
}

/** A login with a TigerGraph secret the user brought: the secret stays theirs, only the token is ours. */
export function secretStrategy(deps: { broker: TokenBroker; tokens: TokenStore; logger: Logger }): KindStrategy {
  return {
    kind: 'secret',
    broker: deps.broker,
    refusalEnds: false,
    fields: () => ({}),
    index: async () => undefined,
    revoke: (ending) => revokeToken(deps, ending),
    async abandon(_sid, login: Login) {
      if (login.kind === 'oidc') return;
      await deps.broker.discard(login.secret, login.grant);
    },
    view: () => ({}),
  };
}
