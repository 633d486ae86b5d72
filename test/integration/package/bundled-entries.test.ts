/**
 * The processes run from esbuild bundles (scripts/bundle.mjs): dist/main.js, dist/cli/main.js and
 * dist/simulator/cli.js import dist/bundle/*, and code that finds files from its own location still finds
 * them from inside a bundle: the demo page (public/) and package.json (the version). (ioredis's own
 * package.json, whose version it reports with CLIENT SETINFO, shows only on Redis 7.2 or later: not here.)
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { startSimulator } from '../../../src/simulator/index.js';
import type { SimulatorHandle } from '../../../src/simulator/types.js';
import { startServiceProcess, type ServiceProcess } from '../../helpers/service-process.js';

const versionOf = (file: string) => (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version;

describe('the bundled service', () => {
  let sim: SimulatorHandle;
  let service: ServiceProcess;

  beforeAll(async () => {
    sim = await startSimulator();
    service = await startServiceProcess({
      TG_RESTPP_URL: sim.restppUrl,
      TG_VERSION: sim.version,
      SESSION_SECRET: randomBytes(32).toString('hex'),
      SESSION_ENCRYPTION_KEYS: `k1:${randomBytes(32).toString('base64')}`,
    });
  });
  afterAll(async () => {
    await service?.kill();
    await sim?.close();
  });

  it('when the entries are built, then each is a stub that imports its bundle', () => {
    for (const [stub, bundle] of [
      ['dist/main.js', './bundle/main.js'],
      ['dist/cli/main.js', '../bundle/tgbff.js'],
      ['dist/simulator/cli.js', '../bundle/sim.js'],
    ]) {
      const text = readFileSync(stub, 'utf8');
      expect(text).toContain(`import '${bundle}';`);
      expect(text.split('\n').filter((line) => line.startsWith('import')).length).toBe(1);
      expect(readFileSync(path.join(path.dirname(stub), bundle), 'utf8').length).toBeGreaterThan(0);
    }
  });

  it('when it serves, then the demo page comes from public/ and the build version from package.json', async () => {
    const page = await fetch(`${service.url}/`);
    expect(page.status).toBe(200);
    expect(await page.text()).toBe(readFileSync('public/index.html', 'utf8'));
    const metrics = await (await fetch(`${service.metricsUrl!}/metrics`)).text();
    expect(metrics).toContain(`tgbff_build_info{version="${versionOf('package.json')}"`);
  });
});
