// The session line at the top: who, which graph, and when the token and the session end, kept current.

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** "expires in 12 min", "expires in 3 h", "expired 2 days ago": coarse on purpose, it is re-rendered as time passes. */
export function relative(ms) {
  const span = Math.abs(ms);
  let text;
  if (span < MINUTE) text = 'less than a minute';
  else if (span < 90 * MINUTE) text = `${Math.round(span / MINUTE)} min`;
  else if (span < 36 * HOUR) text = `${Math.round(span / HOUR)} h`;
  else text = `${Math.round(span / DAY)} days`;
  return ms >= 0 ? `expires in ${text}` : `expired ${text} ago`;
}

function expiry(label, iso, now) {
  const item = document.createElement('span');
  item.className = 'expiry';
  if (!iso) {
    item.textContent = `${label}: none yet`;
    return item;
  }
  const at = new Date(iso);
  const time = document.createElement('time');
  time.dateTime = iso;
  time.textContent = at.toLocaleString([], { dateStyle: 'medium', timeStyle: 'short' });
  item.append(`${label} ${relative(at.getTime() - now)}, at `, time);
  return item;
}

/** `session`: the body of GET /auth/session, or null when not logged in. */
export function renderSession(session, now = Date.now()) {
  const who = document.getElementById('who');
  document.getElementById('logout-button').hidden = !session;
  who.classList.toggle('logged-in', Boolean(session));
  if (!session) {
    who.textContent = 'Not logged in';
    return;
  }
  const name = document.createElement('strong');
  const user = session.username ?? session.name ?? session.sub;
  name.textContent = user ? `Logged in as ${user}${session.login === 'oidc' ? ' (SSO)' : ''}` : 'Logged in';
  const state = document.createElement('span');
  state.append(name, session.graph ? ` to graph ${session.graph}` : '');
  who.replaceChildren(
    state,
    expiry('Token', session.tokenExpiresAt, now),
    expiry('Session', session.sessionExpiresAt, now),
  );
}
