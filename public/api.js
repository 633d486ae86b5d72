// Every call sends the CSRF header and relies on the HttpOnly session cookie; nothing else identifies us.
const CSRF = { 'X-Requested-With': 'XMLHttpRequest' };

/** `body`: an object (sent as JSON) or text sent as it is, so a console user's body reaches the server unaltered. */
export async function call(method, url, body) {
  const headers = { ...CSRF };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const started = performance.now();
  const res = await fetch(url, {
    method,
    headers,
    credentials: 'same-origin',
    body: body === undefined || typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  let data;
  try {
    data = text ? JSON.parse(text) : null;
  } catch {
    data = text;
  }
  return { status: res.status, statusText: res.statusText, data, ms: Math.round(performance.now() - started) };
}

/** The service's `{"error":{"message"}}` or RESTPP's `{"error":true,"message"}`. */
export function errorMessage(data) {
  if (data && typeof data === 'object') return data.error?.message || (data.error === true ? data.message : undefined);
  return undefined;
}
