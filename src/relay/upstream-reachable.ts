import { request, type Pool } from 'undici';

/** Any HTTP answer from the data server counts: a 401 from an auth-enabled /echo still proves it is up. */
export async function reachable(pool: Pool, restppUrl: string): Promise<void> {
  const url = new URL(restppUrl);
  const path = `${url.pathname.replace(/\/$/, '')}/echo`;
  const res = await request(`${url.origin}${path}`, {
    dispatcher: pool,
    method: 'GET',
    headersTimeout: 1000,
    bodyTimeout: 1000,
  });
  await res.body.dump();
}
