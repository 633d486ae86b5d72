import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';

/** Debian's package; playwright's own browser downloads are never used (the network is closed). */
export const CHROMIUM_PATH = '/usr/bin/chromium';

// We run as root with no GPU and no network: no sandbox, nothing that phones home or updates itself.
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/**
 * Whether the browser tests may run here. Under CI a missing browser is an error (.ci/run installs
 * it), so the caller fails; locally the tests are skipped with a message saying how to get it.
 */
export function chromiumAvailability(): { run: boolean; reason?: string } {
  if (existsSync(CHROMIUM_PATH)) return { run: true };
  const hint = `${CHROMIUM_PATH} is missing; install it with: apt-get install -y chromium`;
  return process.env.CI === 'true' ? { run: true, reason: hint } : { run: false, reason: hint };
}

export interface HeadlessChromium {
  context: BrowserContext;
  close(): Promise<void>;
}

/** A headless Chromium with a fresh profile directory, removed again on close. */
export async function launchChromium(extraArgs: readonly string[] = []): Promise<HeadlessChromium> {
  if (!existsSync(CHROMIUM_PATH)) throw new Error(chromiumAvailability().reason);
  const profile = await mkdtemp(join(tmpdir(), 'tgbff-chromium-'));
  // A persistent context is how playwright takes an explicit --user-data-dir.
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [...ARGS, ...extraArgs],
    viewport: { width: 1000, height: 720 },
  });
  return {
    context,
    async close() {
      await context.close().catch(() => undefined);
      await rm(profile, { recursive: true, force: true });
    },
  };
}
