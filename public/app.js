// Demo frontend: every call sends the CSRF header and relies on the HttpOnly session cookie.
const CSRF = { 'X-Requested-With': 'XMLHttpRequest' };
const $ = (id) => document.getElementById(id);

async function call(method, url, body) {
  const headers = { ...CSRF };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const res = await fetch(url, {
    method,
    headers,
    credentials: 'same-origin',
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let data = null;
  try { data = text ? JSON.parse(text) : null; } catch { data = text; }
  return { status: res.status, data };
}

function show(view) {
  $('login-view').hidden = view !== 'login';
  $('app-view').hidden = view !== 'app';
}

function status(message) { $('status').textContent = message || ''; }

async function refresh() {
  const { status: code, data } = await call('GET', '/auth/session');
  if (code === 200) {
    $('who').textContent = `Logged in${data.graph ? ` to graph ${data.graph}` : ''}; session until ${data.sessionExpiresAt}.`;
    show('app');
  } else {
    show('login');
  }
}

$('login-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  status('');
  const graph = $('graph').value.trim();
  const { status: code, data } = await call('POST', '/auth/login', { secret: $('secret').value, ...(graph ? { graph } : {}) });
  $('secret').value = '';
  if (code === 200) { await refresh(); status(''); } else { status(data?.error?.message || `Login failed (${code})`); }
});

$('query-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  status('');
  const path = $('path').value.trim();
  const { status: code, data } = await call($('method').value, `/api${path.startsWith('/') ? path : `/${path}`}`);
  $('output').textContent = typeof data === 'string' ? data : JSON.stringify(data, null, 2);
  if (code === 401) { status('Session ended; log in again.'); show('login'); }
  else if (code >= 400) status(data?.error?.message || `Request failed (${code})`);
});

$('logout-button').addEventListener('click', async () => {
  await call('POST', '/auth/logout');
  $('output').textContent = '';
  status('Logged out.');
  show('login');
});

refresh();
