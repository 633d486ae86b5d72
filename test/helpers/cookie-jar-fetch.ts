/**
 * Node 20's fetch keeps no cookies (undici has no jar, and `credentials: 'include'` means nothing there), so
 * a test that drives the browser SDK from Node gives it this fetch: it stores what `Set-Cookie` sets (by
 * name; `Max-Age=0` or a past `Expires` deletes) and sends it back as `Cookie`, which is what a browser does
 * for the one origin these tests talk to. Path, Domain and Secure are not modelled: one origin, one path.
 * It also counts the calls it made, for the retry tests.
 */
export interface JarFetch {
  fetch: typeof fetch;
  cookies: Map<string, string>;
  calls: Array<{ method: string; url: string; status: number }>;
}

export function cookieJarFetch(): JarFetch {
  const cookies = new Map<string, string>();
  const calls: JarFetch['calls'] = [];
  const jarFetch: typeof fetch = async (input, init = {}) => {
    const headers = new Headers(init.headers);
    if (cookies.size > 0) headers.set('Cookie', [...cookies].map(([k, v]) => `${k}=${v}`).join('; '));
    const res = await fetch(input, { ...init, headers });
    for (const line of res.headers.getSetCookie()) {
      const [pair = '', ...attrs] = line.split(';');
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq).trim();
      const gone = attrs.some((a) => {
        const [k = '', v = ''] = a.trim().split('=');
        return (
          (k.toLowerCase() === 'max-age' && Number(v) <= 0) ||
          (k.toLowerCase() === 'expires' && Date.parse(v) < Date.now())
        );
      });
      if (gone) cookies.delete(name);
      else cookies.set(name, pair.slice(eq + 1).trim());
    }
    calls.push({ method: init.method ?? 'GET', url: String(input), status: res.status });
    return res;
  };
  return { fetch: jarFetch, cookies, calls };
}
