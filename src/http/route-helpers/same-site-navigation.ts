import type { IncomingHttpHeaders } from 'node:http';

/**
 * Whether a GET that changes state (GET /auth/oidc/logout) comes from a person on this site, by the Fetch
 * Metadata headers browsers send (Chrome 76+, Firefox 90+, Safari 16.4+):
 * - `navigation`: a top-level navigation from this origin (`Sec-Fetch-Site: same-origin`) or typed or
 *   bookmarked (`none`), not a prefetch or prerender (`Sec-Purpose`);
 * - `refused`: anything else the headers describe: another site (an `<img>`, a link, a form), a script's
 *   `fetch` (which could read where a redirect went, should the IdP answer CORS), a frame, a prefetch;
 * - `unknown`: no Fetch Metadata at all (an older browser, a non-browser client). The session cookie is
 *   `SameSite=Strict`, so a cross-site request carries no session to end whatever it says; only a page on
 *   the same site, in a browser from before 2023, could make one, and then the IdP gets no `id_token_hint`.
 */
export type NavigationCheck = { kind: 'navigation' } | { kind: 'unknown' } | { kind: 'refused'; why: string };

const one = (v: string | string[] | undefined): string | undefined =>
  (Array.isArray(v) ? v.join(',') : v)?.trim().toLowerCase();

export function checkNavigation(headers: IncomingHttpHeaders): NavigationCheck {
  const site = one(headers['sec-fetch-site']);
  const mode = one(headers['sec-fetch-mode']);
  const dest = one(headers['sec-fetch-dest']);
  if (headers['sec-purpose'] !== undefined || headers['purpose'] !== undefined)
    return { kind: 'refused', why: 'a prefetch or prerender' };
  if (site === undefined && mode === undefined && dest === undefined) return { kind: 'unknown' };
  if (site !== 'same-origin' && site !== 'none')
    return { kind: 'refused', why: `not from this origin (Sec-Fetch-Site: ${site ?? 'absent'})` };
  if (mode !== 'navigate') return { kind: 'refused', why: 'not a navigation (a script or a subresource)' };
  if (dest !== undefined && dest !== 'document')
    return { kind: 'refused', why: `a navigation of a ${dest}, not of the page` };
  return { kind: 'navigation' };
}
