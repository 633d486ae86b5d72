import { setTimeout as sleep } from 'node:timers/promises';

/** Re-checks every 100 ms until `check` holds (a throw counts as not yet); fails naming `what`. */
export async function poll(check: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check().catch(() => false)) return;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(100);
  }
}
