// "Your sessions": every live session of the person (GET /auth/sessions through the SDK), each with an End
// button; this one is marked and logs out instead. Built with textContent only: nothing from the service is
// ever parsed as HTML.
import { BffError, bff } from './bff.js';

const $ = (id) => document.getElementById(id);

function when(iso) {
  return new Date(iso).toLocaleString();
}

/** Lists the sessions; `onChange` runs after an end (the page re-reads its own session). */
export async function renderSessions(onChange) {
  const list = $('session-list');
  const sessions = await bff.sessions().catch(() => null);
  list.replaceChildren();
  $('end-others-button').hidden = !sessions || sessions.length < 2;
  if (!sessions) return;
  for (const s of sessions) {
    const item = document.createElement('li');
    const text = document.createElement('span');
    const where = [s.client ?? 'unknown client', s.address ?? 'unknown address', s.graph ?? 'no graph'].join(' · ');
    text.textContent = `${s.current ? 'This session' : where} — since ${when(s.createdAt)}, last seen ${when(s.lastSeenAt)}`;
    if (s.current) text.title = where;
    const end = document.createElement('button');
    end.type = 'button';
    end.textContent = s.current ? 'Log out' : 'End';
    end.setAttribute('aria-label', s.current ? 'Log out of this session' : `End the session of ${where}`);
    end.addEventListener('click', async () => {
      try {
        await bff.endSession(s.id);
      } catch (err) {
        if (!(err instanceof BffError)) throw err;
      }
      await onChange();
    });
    item.append(text, ' ', end);
    list.append(item);
  }
}

/** Wires the "End all others" button once. */
export function wireEndOthers(onChange) {
  $('end-others-button').addEventListener('click', async () => {
    await bff.endOtherSessions().catch(() => undefined);
    await onChange();
  });
}
