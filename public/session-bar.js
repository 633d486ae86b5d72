// The session line at the top: who, which graph, and when the token and the session end, kept current.

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/**
 * "expires in 42 s", "expires in 12 min", "expires in 3 h", "expired 2 days ago": seconds in the last minute
 * (the page re-renders every second then), coarser further out (re-rendered as time passes).
 */
export function relative(ms) {
  const span = Math.abs(ms);
  let text;
  if (span < MINUTE) text = `${Math.max(1, Math.ceil(span / 1000))} s`;
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

/**
 * How long until the bar needs drawing again: every second within 90 s of an end it shows, else every
 * 30 s, and never past the session's end (the page asks the server then). `Infinity` without a session.
 */
export function nextTickMs(session, now = Date.now()) {
  if (!session) return Infinity;
  const ends = [session.tokenExpiresAt, session.sessionExpiresAt].filter(Boolean).map((iso) => Date.parse(iso) - now);
  const soonest = Math.min(...ends.filter((ms) => ms > 0), Infinity);
  const sessionLeft = session.sessionExpiresAt ? Date.parse(session.sessionExpiresAt) - now : Infinity;
  const step = soonest <= 90_000 ? 1000 - (now % 1000) : 30_000;
  return Math.max(0, Math.min(step, sessionLeft));
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
  // A credential-map session says which rule let the person in ("signed in as Ada via analysts").
  const via = session.rule ? ` via ${session.rule}` : session.login === 'oidc' ? ' (SSO)' : '';
  name.textContent = user ? `${session.rule ? 'Signed in' : 'Logged in'} as ${user}${via}` : 'Logged in';
  const state = document.createElement('span');
  state.append(name, session.graph ? ` to graph ${session.graph}` : '');
  who.replaceChildren(
    state,
    ...openGraphs(session),
    // The session's end is the one that logs you out; the token is TigerGraph's, renewed by the service.
    expiry('Token (renewed by the service)', session.tokenExpiresAt, now),
    expiry('Session (ends your login)', session.sessionExpiresAt, now),
  );
}

/**
 * A credential-map session may move to another graph its rule opens (a new sign-in with `?graph=`): only
 * those are offered. `*` opens any graph the rule's credential reaches, so there is no list to offer.
 */
function openGraphs(session) {
  const others = (session.graphs ?? []).filter((g) => g !== '*' && g !== session.graph);
  if (!session.rule || others.length === 0) return [];
  const item = document.createElement('span');
  item.className = 'open-graphs';
  item.append('Also open to you: ');
  others.forEach((graph, i) => {
    const link = document.createElement('a');
    link.href = `/auth/oidc/login?graph=${encodeURIComponent(graph)}`;
    link.textContent = graph;
    item.append(...(i > 0 ? [', '] : []), link);
  });
  return [item];
}
