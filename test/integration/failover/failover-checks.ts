import { CSRF, call, login, type Cluster } from '../multi-instance/cluster.js';

/** `n` logins dealt over the instances, ten at a time. */
export async function loginSessions(cluster: Cluster, n: number): Promise<string[]> {
  const cookies: string[] = [];
  for (let i = 0; i < n; i += 10) {
    const batch = Array.from({ length: Math.min(10, n - i) }, (_, j) =>
      login(cluster.instances[(i + j) % cluster.instances.length]!.url, cluster.secret),
    );
    cookies.push(...(await Promise.all(batch)));
  }
  return cookies;
}

/** Every session asked on every instance: what a user sees after the failover, with the cookie they had. */
export async function sessionAnswers(
  cluster: Cluster,
  cookies: string[],
): Promise<Array<{ status: number; authenticated: unknown }>> {
  const answers = await Promise.all(
    cookies.flatMap((cookie) => cluster.instances.map((i) => call(i.url, '/auth/session', cookie))),
  );
  return answers.map((a) => ({ status: a.status, authenticated: a.body.authenticated }));
}

/**
 * Forces every session to mint again (its token revoked upstream, as if dropped server-side) and sends
 * `perSession` concurrent requests for each, dealt over the instances. Returns the answers and how many
 * POST /requesttoken reached the simulator for it: single-flight means exactly one per session.
 */
export async function remintEverySession(cluster: Cluster, cookies: string[], perSession = 6) {
  for (const { token } of cluster.sim.tokens()) cluster.sim.revokeToken(token);
  const before = cluster.sim.counts()['POST /requesttoken'] ?? 0;
  const answers = await Promise.all(
    cookies.flatMap((cookie) =>
      Array.from({ length: perSession }, (_, k) =>
        call(cluster.instances[k % cluster.instances.length]!.url, '/api/echo', cookie),
      ),
    ),
  );
  return { answers: answers.map((a) => a.status), mints: (cluster.sim.counts()['POST /requesttoken'] ?? 0) - before };
}

/** A login as a browser sends it: its status, the session cookie it set (if any), and when it answered. */
export async function tryLogin(baseUrl: string, secret: string) {
  const res = await fetch(`${baseUrl}/auth/login`, {
    method: 'POST',
    headers: { ...CSRF, 'Content-Type': 'application/json' },
    body: JSON.stringify({ secret, graph: 'social' }),
  });
  await res.arrayBuffer();
  const pair = res.headers.get('set-cookie')?.split(';')[0];
  return {
    status: res.status,
    cookie: pair?.includes('=') && !pair.endsWith('=') ? pair : undefined,
    endedAt: Date.now(),
  };
}
