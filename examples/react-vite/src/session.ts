import { useEffect, useState } from 'react';
import type { Methods, Session, SessionEndReason, SessionEvent } from '@tigergraph-bff/browser';
import { bff } from './bff.js';

export interface SessionState {
  /** Undefined until the first answer; null when no one is logged in. */
  session: Session | null | undefined;
  methods: Methods | undefined;
  /** A line for the person: the session is about to end, or why it ended. */
  notice: string | undefined;
}

// The SDK fires `sessionend` only for a session it knew of (or a logout): each reason is news to show. A
// session the service has already forgotten at its end answers not_authenticated, not session_expired.
const ENDED: Record<SessionEndReason, string> = {
  logout: 'You logged out.',
  not_authenticated: 'Your session has ended; log in again.',
  session_expired: 'Your session has ended; log in again.',
  session_ended: 'This session was ended elsewhere (a newer login, you, or an operator); log in again.',
  token_rejected: 'TigerGraph no longer accepts this session; log in again.',
};

/** The session and the logins offered, kept current by the SDK's `sessionend` and `sessionexpiring` events. */
export function useSession(): SessionState & { refresh: () => Promise<void> } {
  const [state, setState] = useState<SessionState>({ session: undefined, methods: undefined, notice: undefined });
  const refresh = async () => {
    const [session, methods] = await Promise.all([bff.session(), bff.methods()]);
    setState((s) => ({ ...s, session, methods }));
  };
  useEffect(() => {
    const onEnd = (event: Event) => {
      const reason = (event as SessionEvent).reason ?? 'not_authenticated';
      setState((s) => ({ ...s, session: null, notice: ENDED[reason] }));
    };
    const onExpiring = (event: Event) => {
      const at = (event as SessionEvent).expiresAt;
      setState((s) => ({ ...s, notice: `Your session ends at ${at ? new Date(at).toLocaleTimeString() : 'once'}.` }));
    };
    bff.addEventListener('sessionend', onEnd);
    bff.addEventListener('sessionexpiring', onExpiring);
    refresh().catch(() => setState((s) => ({ ...s, session: null, notice: 'The service did not answer.' })));
    return () => {
      bff.removeEventListener('sessionend', onEnd);
      bff.removeEventListener('sessionexpiring', onExpiring);
      bff.close();
    };
  }, []);
  return { ...state, refresh };
}
