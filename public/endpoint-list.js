// The endpoint list comes from the data server's own GET /endpoints (RESTPP's listing, also served by the
// simulator from its query table), read through the relay like any other call: nothing is listed here.
import { BffError, bff, parseBody } from './bff.js';

const NUMERIC = /^(U?INT|FLOAT|DOUBLE)/i;

function entries(listing, method, graph) {
  if (!listing || typeof listing !== 'object') return [];
  return Object.entries(listing).flatMap(([key, spec]) => {
    const [verb, raw] = key.split(' ');
    // The relay never forwards /requesttoken (the token stays on the server), so it is no use listing it.
    if (!verb || !raw || raw.startsWith('/requesttoken')) return [];
    const path = graph ? raw.replaceAll('{graph_name}', encodeURIComponent(graph)) : raw;
    return [{ method: verb, path, params: spec?.parameters ?? {}, kind: method }];
  });
}

/** A body to start from for a non-GET call: each parameter with an empty value of its type. */
export function bodyTemplate(params) {
  const names = Object.keys(params);
  if (names.length === 0) return '';
  const fields = names.map((name) => [name, NUMERIC.test(params[name]?.type ?? '') ? 0 : '']);
  return JSON.stringify(Object.fromEntries(fields), null, 2);
}

/** Installed queries first (the demo's point), then the built-ins; `{ error }` when the listing is refused. */
export async function loadEndpoints(graph) {
  const path = `/endpoints${graph ? `/${encodeURIComponent(graph)}` : ''}`;
  const list = async (kind) => {
    try {
      const res = await bff.relay('GET', path, { query: { [kind]: 'true' } });
      const data = parseBody(await res.text());
      // RESTPP's own refusal: `{"error":true,"message"}`.
      return res.ok ? { data } : { error: `${res.status}: ${data?.message || 'the endpoint list is not available'}` };
    } catch (err) {
      if (err instanceof BffError) return { error: `${err.status}: ${err.message}` };
      throw err;
    }
  };
  const [dynamic, builtin] = await Promise.all([list('dynamic'), list('builtin')]);
  const failed = [dynamic, builtin].find((r) => r.error);
  if (failed) return { error: failed.error };
  return { queries: entries(dynamic.data, 'query', graph), builtins: entries(builtin.data, 'builtin', graph) };
}

function group(title, items, onPick) {
  const section = document.createElement('div');
  const heading = document.createElement('h3');
  heading.textContent = title;
  const list = document.createElement('ul');
  for (const item of items) {
    const button = document.createElement('button');
    button.type = 'button';
    button.className = 'endpoint';
    button.dataset.method = item.method;
    button.dataset.path = item.path;
    const verb = document.createElement('span');
    verb.className = `verb verb-${item.method.toLowerCase()}`;
    verb.textContent = item.method;
    const path = document.createElement('code');
    // A long path wraps after a slash, never inside a segment or a {placeholder}.
    item.path.split(/(?<=\/)/).forEach((segment, i) => {
      if (i > 0) path.append(document.createElement('wbr'));
      path.append(segment);
    });
    button.append(verb, path);
    button.addEventListener('click', () => onPick(item));
    const li = document.createElement('li');
    li.append(button);
    const names = Object.keys(item.params);
    if (names.length > 0) {
      const params = document.createElement('small');
      params.textContent = names.map((n) => `${n}: ${item.params[n]?.type ?? '?'}`).join(', ');
      li.append(params);
    }
    list.append(li);
  }
  section.append(heading, list);
  return section;
}

export function renderEndpoints(result, onPick) {
  const host = document.getElementById('endpoint-list');
  if (!result) return host.replaceChildren();
  if (result.error) {
    const note = document.createElement('p');
    note.className = 'hint';
    note.textContent = `Could not list endpoints (${result.error}).`;
    return host.replaceChildren(note);
  }
  host.replaceChildren(group('Installed queries', result.queries, onPick), group('Built-in', result.builtins, onPick));
}
