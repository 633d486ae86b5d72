// Demo console: log in with a secret, pick an endpoint the data server lists, run it through the relay.
import { call, errorMessage } from './api.js';
import { bodyTemplate, loadEndpoints, renderEndpoints } from './endpoint-list.js';
import { nextTickMs, renderSession } from './session-bar.js';

const $ = (id) => document.getElementById(id);
let session = null;
let listedFor;
/** GET /auth/methods' oidcLogoutUrl, when the service offers single sign-on. */
let oidcLogoutUrl;

function show(view) {
  $('login-view').hidden = view !== 'login';
  $('app-view').hidden = view !== 'app';
}

/** `kind`: 'error' or 'info'; a logout or a hint is not a failure and must not look like one. */
function status(message, kind = 'error') {
  $('status').textContent = message || '';
  $('status').className = message ? kind : '';
}

function clearAnswer() {
  $('output').textContent = '';
  $('answer-status').textContent = '';
  $('answer-status').className = '';
}

async function refresh() {
  const { status: code, data } = await call('GET', '/auth/session');
  const ended = session && code !== 200;
  session = code === 200 ? data : null;
  renderSession(session);
  // Unless something already said why (a logout, a 401 answer): the timer found the end.
  if (ended && !$('status').textContent) status('Your session has ended; log in again.', 'info');
  scheduleTick();
  show(session ? 'app' : 'login');
  if (!session) {
    listedFor = undefined;
    renderEndpoints(null);
  } else if (listedFor !== session.graph) {
    listedFor = session.graph;
    renderEndpoints(await loadEndpoints(session.graph), pick);
  }
}

function syncBodyField() {
  $('body-field').hidden = $('method').value === 'GET';
}

function pick(endpoint) {
  $('method').value = endpoint.method;
  $('path').value = endpoint.path;
  syncBodyField();
  if (endpoint.method === 'GET' && !endpoint.path.includes('{')) return run();
  if (endpoint.method !== 'GET') $('body').value = bodyTemplate(endpoint.params);
  const placeholder = endpoint.path.indexOf('{');
  const name = placeholder >= 0 ? endpoint.path.slice(placeholder, endpoint.path.indexOf('}', placeholder) + 1) : '';
  status(
    placeholder >= 0
      ? `Filled in ${endpoint.method} ${endpoint.path}: replace ${name} in the path, then press Run.`
      : `Filled in ${endpoint.method} ${endpoint.path}: edit the body, then press Run.`,
    'info',
  );
  const field = placeholder >= 0 || endpoint.method === 'GET' ? $('path') : $('body');
  field.focus();
  if (placeholder >= 0) field.setSelectionRange(placeholder, endpoint.path.indexOf('}', placeholder) + 1);
}

async function run() {
  status('');
  const method = $('method').value;
  const raw = $('path').value.trim();
  const path = raw.startsWith('/') ? raw : `/${raw}`;
  const body = method !== 'GET' && $('body').value.trim() !== '' ? $('body').value : undefined;
  const answer = await call(method, `/api${path}`, body);
  $('output').textContent = typeof answer.data === 'string' ? answer.data : JSON.stringify(answer.data, null, 2);
  $('answer-status').textContent = `${answer.status} ${answer.statusText} · ${method} ${path} · ${answer.ms} ms`;
  $('answer-status').className = answer.status < 400 ? 'ok' : 'failed';
  // On a phone the answer can be below the fold: bring it into view.
  $('answer-status').scrollIntoView({ block: 'nearest' });
  if (answer.status === 401)
    status(`Session ended (${errorMessage(answer.data) || 'not authenticated'}); log in again.`);
  // The token may have been refreshed or the session ended: keep the bar truthful.
  await refresh();
}

$('login-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  status('');
  const graph = $('graph').value.trim();
  const { status: code, data } = await call('POST', '/auth/login', {
    secret: $('secret').value,
    ...(graph ? { graph } : {}),
  });
  $('secret').value = '';
  if (code === 200) {
    clearAnswer();
    await refresh();
  } else {
    status(errorMessage(data) || `Login failed (${code})`);
  }
});

$('method').addEventListener('change', syncBodyField);

$('query-form').addEventListener('submit', (event) => {
  event.preventDefault();
  void run();
});

$('logout-button').addEventListener('click', async () => {
  // A single sign-on session: go to the service's logout URL, which ends this session and sends the browser
  // on to the identity provider to end that session too (RP-initiated logout). A navigation, not a fetch:
  // the IdP's logout address carries the id token, and no answer this script can read ever does.
  if (session?.login === 'oidc' && oidcLogoutUrl) {
    window.location.assign(oidcLogoutUrl);
    return;
  }
  const { status: code, data } = await call('POST', '/auth/logout');
  clearAnswer();
  if (code === 204) status('Logged out.', 'info');
  else status(errorMessage(data) || `Logout failed (${code})`);
  await refresh();
});

// Relative times go stale: re-render as nextTickMs says (every second near an end), and ask the server
// once the session should be over, so the bar shows the end when it comes, without a click.
let tick;
function scheduleTick() {
  clearTimeout(tick);
  const wait = nextTickMs(session);
  if (wait === Infinity) return;
  tick = setTimeout(() => {
    if (session && Date.parse(session.sessionExpiresAt) <= Date.now()) void refresh();
    else {
      renderSession(session);
      scheduleTick();
    }
  }, wait);
}

/** The SSO button shows only when the service offers single sign-on (GET /auth/methods, public). */
async function offerSso() {
  const { status: code, data } = await call('GET', '/auth/methods');
  if (code !== 200 || !data?.oidc) return;
  oidcLogoutUrl = data.oidcLogoutUrl;
  $('sso-button').href = data.oidcLoginUrl;
  $('sso').hidden = false;
}

void offerSso();
void refresh();
