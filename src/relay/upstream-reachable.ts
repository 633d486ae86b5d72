import { request, type Pool } from 'undici';

/** Any HTTP answer counts: a 401 from an auth-enabled /echo still proves the data server is up. */
export function reachable(pool: Pool, restppUrl: string): Promise<void> {
  const url = new URL(restppUrl);
  return answers(pool, `${url.origin}${url.pathname.replace(/\/$/, '')}/echo`);
}

/**
 * The admin server's origin answers at all (`/api/ping`, TigerGraph's own liveness path on that port; any
 * status counts, as for the data server): where 4.1+ tokens and password logins go.
 */
export function adminReachable(pool: Pool, adminUrl: string): Promise<void> {
  return answers(pool, `${new URL(adminUrl).origin}/api/ping`);
}

async function answers(pool: Pool, url: string): Promise<void> {
  const res = await request(url, { dispatcher: pool, method: 'GET', headersTimeout: 1000, bodyTimeout: 1000 });
  await res.body.dump();
}
