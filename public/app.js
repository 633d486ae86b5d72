// Demo console: log in with a secret, pick an endpoint the data server lists, run it through the relay.
import { call, errorMessage } from './api.js';
import { bodyTemplate, loadEndpoints, renderEndpoints } from './endpoint-list.js';
import { renderSession } from './session-bar.js';

const $ = (id) => document.getElementById(id);
let session = null;
let listedFor;

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
  session = code === 200 ? data : null;
  renderSession(session);
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
  const { status: code, data } = await call('POST', '/auth/logout');
  clearAnswer();
  // A single sign-on session: end the identity provider's session too (RP-initiated logout).
  if (code === 200 && data?.logoutUrl) {
    window.location.assign(data.logoutUrl);
    return;
  }
  if (code === 204) status('Logged out.', 'info');
  else status(errorMessage(data) || `Logout failed (${code})`);
  await refresh();
});

// Relative times go stale: re-render each half minute, and ask the server once the session should be over.
setInterval(() => {
  if (session && Date.parse(session.sessionExpiresAt) <= Date.now()) void refresh();
  else renderSession(session);
}, 30_000);

/** The SSO button shows only when the service offers single sign-on (GET /auth/methods, public). */
async function offerSso() {
  const { status: code, data } = await call('GET', '/auth/methods');
  if (code !== 200 || !data?.oidc) return;
  $('sso-button').href = data.oidcLoginUrl;
  $('sso').hidden = false;
}

void offerSso();
void refresh();
