import { call, CSRF, login, type Answer, type Cluster } from '../multi-instance/cluster.js';
import { until } from '../../helpers/wait.js';

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
 * Every session asked on every instance: what a user sees after the failover, with the cookie they had. A
 * refusal names the instance, its error code and the cause the instance logged for that request (found by
 * the request id it answered with), so a failure in CI says what the store met.
 */
export async function sessionAnswers(
  cluster: Cluster,
  cookies: string[],
): Promise<Array<{ instance: number; status: number; authenticated: unknown; error?: unknown; cause?: string }>> {
  const answers = await Promise.all(
    cookies.flatMap((cookie) =>
      cluster.instances.map(async (i, instance) => {
        const res = await fetch(`${i.url}/auth/session`, { headers: { ...CSRF, Cookie: cookie } });
        // The id the instance gave the request (a client's own X-Request-Id is never the id).
        const requestId = res.headers.get('x-request-id') ?? '';
        const text = await res.text();
        const body = (text ? JSON.parse(text) : {}) as Answer['body'];
        return { instance, requestId, status: res.status, body };
      }),
    ),
  );
  return answers.map(({ instance, requestId, status, body }) => ({
    instance,
    status,
    authenticated: body.authenticated,
    ...(status !== 200 && { error: body.error, cause: loggedCause(cluster.instances[instance]!.output(), requestId) }),
  }));
}

/**
 * The error message an instance logged for one request (its error line's `err.message`), if any. A step
 * refused on a silent connection also names the silence it met: the instance's last warning before the
 * request that a command timed out (which connection, which command, how long it waited, how old the
 * connection was, how many commands were waiting on it), so a CI failure says which command stalled.
 */
function loggedCause(output: string, requestId: string): string | undefined {
  const lines = output.split('\n');
  const at = lines.findIndex((l) => l.includes(`"requestId":"${requestId}"`) && l.includes('"err"'));
  if (at === -1) return undefined;
  const line = lines[at]!;
  let message: string | undefined;
  try {
    message = (JSON.parse(line) as { err?: { message?: string } }).err?.message;
  } catch {
    return line.slice(0, 300);
  }
  if (!message?.startsWith('Redis has not answered since a command timed out')) return message;
  const silence = lines
    .slice(0, at)
    .reverse()
    .find((l) => l.includes('"msg":"redis command timed out'));
  return silence === undefined ? message : `${message}; silent since: ${silence.slice(0, 400)}`;
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

/** What an instance logs once per outage of each of its Redis connections (src/store/redis/client.ts). */
const LOSS_LINE = '"msg":"redis unavailable; reconnecting"';

/**
 * Counts the lost-Redis warnings each instance has logged so far; the returned wait resolves once each of
 * the instances numbered `which` (default: all) has logged one more. Such a warning comes after a connection
 * closed and connecting again failed (a Sentinel client sent to the dead master): that instance has seen
 * the master go, so a request sent to it from then on meets the failover (held, or tried again), never a
 * write on its way to a socket that is already dead. Call it before the kill.
 */
export function lossLogs(cluster: Cluster): (which?: number[]) => Promise<void> {
  const count = (k: number): number => cluster.instances[k]!.output().split(LOSS_LINE).length - 1;
  const before = cluster.instances.map((_i, k) => count(k));
  return async (which = cluster.instances.map((_i, k) => k)) => {
    await until(`instances ${which.join(', ')} to log the lost Redis`, () => which.every((k) => count(k) > before[k]!));
  };
}
