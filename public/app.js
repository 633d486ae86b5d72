// Demo console: log in with a secret, pick an endpoint the data server lists, run it through the relay.
import { BffError, bff, parseBody } from './bff.js';
import { bodyTemplate, loadEndpoints, renderEndpoints } from './endpoint-list.js';
import { nextTickMs, renderSession } from './session-bar.js';
import { renderSessions, wireEndOthers } from './session-list.js';
import { callerParams, hideParamForm, renderParamForm } from './param-form.js';

const $ = (id) => document.getElementById(id);
let session = null;
let listedFor;

function show(view) {
  $('login-view').hidden = view !== 'login';
  $('app-view').hidden = view !== 'app';
}

/**
 * `kind`: 'error' or 'info'; a logout or a hint is not a failure and must not look like one. `where`: the
 * line beside the form that caused it (`login-status`, `query-hint`), or the page's own (`status`).
 */
function status(message, kind = 'error', where = 'status') {
  $(where).textContent = message || '';
  $(where).className = message ? kind : '';
}

/** The values the parameter form gives, for the query it was drawn for; undefined when none is open. */
let readParams;
let paramsFor;

function clearAnswer() {
  $('output').textContent = '';
  $('answer-status').textContent = '';
  $('answer-status').className = '';
}

async function refresh() {
  const next = await bff.session().catch(() => null);
  const ended = session && !next;
  session = next;
  renderSession(session);
  // Unless something already said why (a logout, a 401 answer): the timer found the end.
  if (ended && !$('status').textContent) status('Your session has ended; log in again.', 'info');
  scheduleTick();
  show(session ? 'app' : 'login');
  if (!session) {
    listedFor = undefined;
    renderEndpoints(null);
    hideParamForm();
  } else if (listedFor !== session.graph) {
    listedFor = session.graph;
    renderEndpoints(await loadEndpoints(session.graph), pick);
  }
  if (session) await renderSessions(refresh);
}

wireEndOthers(refresh);

function syncBodyField() {
  $('body-field').hidden = $('method').value === 'GET';
}

function pick(endpoint) {
  $('method').value = endpoint.method;
  $('path').value = endpoint.path;
  syncBodyField();
  status('', 'info', 'query-hint');
  hideParamForm();
  readParams = undefined;
  const name = endpoint.path.split('/').pop();
  const params = endpoint.kind === 'query' ? callerParams(name, endpoint.params) : [];
  if (params.length > 0) {
    // A query with parameters: a form for them, run on submit (not at once, empty).
    if (endpoint.method !== 'GET') $('body').value = bodyTemplate(Object.fromEntries(params));
    readParams = renderParamForm(`${endpoint.method} ${name}: parameters`, params);
    paramsFor = endpoint;
    $('param-run').textContent = `Run ${name}`;
    return;
  }
  if (endpoint.method === 'GET' && !endpoint.path.includes('{')) return run();
  if (endpoint.method !== 'GET') $('body').value = bodyTemplate(endpoint.params);
  const placeholder = endpoint.path.indexOf('{');
  const slot = placeholder >= 0 ? endpoint.path.slice(placeholder, endpoint.path.indexOf('}', placeholder) + 1) : '';
  status(
    placeholder >= 0
      ? `Filled in ${endpoint.method} ${endpoint.path}: replace ${slot} in the path, then press Run.`
      : `Filled in ${endpoint.method} ${endpoint.path}: edit the body, then press Run.`,
    'info',
    'query-hint',
  );
  const field = placeholder >= 0 || endpoint.method === 'GET' ? $('path') : $('body');
  field.focus();
  if (placeholder >= 0) field.setSelectionRange(placeholder, endpoint.path.indexOf('}', placeholder) + 1);
}

async function run() {
  status('');
  status('', 'info', 'query-hint');
  const method = $('method').value;
  const raw = $('path').value.trim();
  const path = raw.startsWith('/') ? raw : `/${raw}`;
  const body = method !== 'GET' && $('body').value.trim() !== '' ? $('body').value : undefined;
  const started = performance.now();
  let answer;
  try {
    const res = await bff.relay(method, path, body === undefined ? {} : { body });
    answer = { status: res.status, label: `${res.status} ${res.statusText}`, data: parseBody(await res.text()) };
  } catch (err) {
    // The service's own refusal (TigerGraph's answers, errors included, come back as responses above).
    if (!(err instanceof BffError)) throw err;
    answer = { status: err.status, label: `${err.status} ${err.code}`, data: err.body ?? null, error: err };
  }
  const ms = Math.round(performance.now() - started);
  $('output').textContent = typeof answer.data === 'string' ? answer.data : JSON.stringify(answer.data, null, 2);
  $('answer-status').textContent = `${answer.label} · ${method} ${path} · ${ms} ms`;
  $('answer-status').className = answer.status < 400 ? 'ok' : 'failed';
  // On a phone the answer can be below the fold: bring it into view.
  $('answer-status').scrollIntoView({ block: 'nearest' });
  if (answer.error?.sessionEnded) status(`Session ended (${answer.error.message}); log in again.`);
  // The token may have been refreshed or the session ended: keep the bar truthful.
  await refresh();
}

$('login-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  status('');
  const graph = $('graph').value.trim();
  const secret = $('secret').value;
  $('secret').value = '';
  try {
    await bff.login({ secret, ...(graph ? { graph } : {}) });
  } catch (err) {
    status(err instanceof BffError ? err.message : `Login failed (${err})`, 'error', 'login-status');
    return;
  }
  status('', 'info', 'login-status');
  clearAnswer();
  await refresh();
});

$('method').addEventListener('change', syncBodyField);

$('param-form').addEventListener('submit', (event) => {
  event.preventDefault();
  if (!readParams || !paramsFor) return;
  const values = readParams();
  if (paramsFor.method === 'GET') {
    const query = new URLSearchParams(Object.entries(values).map(([k, v]) => [k, String(v)])).toString();
    $('path').value = query ? `${paramsFor.path}?${query}` : paramsFor.path;
  } else $('body').value = JSON.stringify(values);
  void run();
});

$('query-form').addEventListener('submit', (event) => {
  event.preventDefault();
  void run();
});

$('logout-button').addEventListener('click', async () => {
  // A single sign-on session: the SDK navigates to the service's logout URL, which ends this session and
  // sends the browser on to the identity provider to end that session too (RP-initiated logout). A
  // navigation, not a fetch: the IdP's logout address carries the id token, and no script ever reads it.
  try {
    if ((await bff.logout()) === 'navigated') return;
    clearAnswer();
    status('Logged out.', 'info');
  } catch (err) {
    clearAnswer();
    status(err instanceof BffError ? err.message : `Logout failed (${err})`);
  }
  await refresh();
});

// Relative times go stale: re-render as nextTickMs says (every second near an end), up to the session's end.
// The end itself comes from the SDK: at that time it asks the server and fires `sessionend`, as it does
// when any call finds the session gone, so the bar shows the end when it comes, without a click.
let tick;
function scheduleTick() {
  clearTimeout(tick);
  const wait = nextTickMs(session);
  if (wait === Infinity) return;
  tick = setTimeout(() => {
    renderSession(session);
    if (session && Date.parse(session.sessionExpiresAt) > Date.now()) scheduleTick();
  }, wait);
}

// A logout is this page's own doing (it says so itself); any other end is news to show.
bff.addEventListener('sessionend', (event) => {
  if (event.reason !== 'logout') void refresh();
});

/** The SSO button shows only when the service offers single sign-on (GET /auth/methods, public). */
async function offerSso() {
  const methods = await bff.methods().catch(() => null);
  if (!methods?.oidc) return;
  $('sso-button').href = methods.oidcLoginUrl;
  // With the credential map, the SSO sign-in asks for the graph typed above; the service refuses one the
  // person's rule does not open (403 graph_not_permitted).
  if (methods.oidcCredentialMap) {
    const withGraph = () => {
      const graph = $('graph').value.trim();
      $('sso-button').href = graph
        ? `${methods.oidcLoginUrl}?graph=${encodeURIComponent(graph)}`
        : methods.oidcLoginUrl;
    };
    $('graph').addEventListener('input', withGraph);
    withGraph();
  }
  $('sso').hidden = false;
}

void offerSso();
void refresh();
