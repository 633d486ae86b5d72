import { call, login, type Cluster } from '../multi-instance/cluster.js';

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

/**
 * Every session asked on every instance: what a user sees after the failover, with the cookie they had. Each
 * answer names the instance it came from and, for a refusal, its error code, so a failure says where.
 */
export async function sessionAnswers(
  cluster: Cluster,
  cookies: string[],
): Promise<Array<{ instance: number; status: number; authenticated: unknown; error?: unknown }>> {
  const answers = await Promise.all(
    cookies.flatMap((cookie) =>
      cluster.instances.map(async (i, instance) => ({ instance, answer: await call(i.url, '/auth/session', cookie) })),
    ),
  );
  return answers.map(({ instance, answer: a }) => ({
    instance,
    status: a.status,
    authenticated: a.body.authenticated,
    ...(a.status !== 200 && { error: a.body.error }),
  }));
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
