import { describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:net';
import { startSimulator } from '../../../src/simulator/index.js';
import { startOutcome } from '../../helpers/start-outcome.js';

/**
 * What the service says when it starts (issue 30, item 6), from real process starts: a misspelt setting is
 * named with the setting it resembles, a port clash names the setting and the fix, and in production every
 * line it writes, on stdout and stderr, is JSON, the listening line naming the address really bound.
 */
const occupied = async (): Promise<{ port: number; server: Server }> => {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as { port: number }).port, server };
};

describe('start-up output', () => {
  it('when a variable is a near miss of a setting, then a warning names the setting it resembles and not the value', async () => {
    const run = await startOutcome({ TRUST_PROXI: 'loopback', allowed_origins: 'https://app.example' });
    expect(run.listened).toBe(true);
    const warnings = run.output.split('\n').filter((line) => line.includes('is not a setting'));
    expect(warnings).toHaveLength(2);
    expect(warnings.join('\n')).toContain('"variable":"TRUST_PROXI","setting":"TRUST_PROXY"');
    expect(warnings.join('\n')).toContain('"variable":"allowed_origins","setting":"ALLOWED_ORIGINS"');
    expect(warnings.join('\n')).not.toMatch(/loopback|app\.example/);
  });

  it.each(['METRICS_PORT', 'PORT'] as const)(
    'when %s is taken by another process, then the start fails naming the setting and the fix',
    async (setting) => {
      const { port, server } = await occupied();
      try {
        const run = await startOutcome({
          [setting]: String(port),
          ...(setting === 'METRICS_PORT' ? {} : { METRICS_PORT: 'off' }),
        });
        expect(run.listened).toBe(false);
        expect(run.code).toBe(1);
        expect(run.output).toContain(
          `${setting}=${port} (on 127.0.0.1): the port is already in use (another instance on this host?); set ${setting} to a free port`,
        );
        if (setting === 'METRICS_PORT') expect(run.output).toContain('or METRICS_PORT=off');
      } finally {
        server.close();
      }
    },
  );

  describe('in production', () => {
    const production = (restppUrl: string) => ({
      NODE_ENV: 'production',
      TG_RESTPP_URL: restppUrl,
      REDIS_URL: 'redis://127.0.0.1:6379',
      REDIS_PREFIX: `tgbff-test:start-output:${randomBytes(4).toString('hex')}:`,
      SESSION_SECRET: randomBytes(36).toString('base64url'),
      SESSION_ENCRYPTION_KEYS: `k1:${randomBytes(32).toString('base64')}`,
      METRICS_PORT: '0',
    });
    const nonJson = (output: string) =>
      output.split('\n').filter((line) => {
        if (line.trim() === '') return false;
        try {
          return typeof JSON.parse(line) !== 'object';
        } catch {
          return true;
        }
      });

    it('when it starts, then every line is JSON, there is no browser banner, and the listening line names the bound address', async () => {
      const sim = await startSimulator({});
      try {
        const run = await startOutcome({ ...production(sim.restppUrl), TRUST_PROXI: '1' });
        expect(run.listened).toBe(true);
        expect(nonJson(run.output)).toEqual([]);
        expect(run.output).not.toContain('in a browser');
        const listening = run.output.split('\n').find((line) => line.includes('"msg":"listening"'))!;
        expect(JSON.parse(listening)).toMatchObject({
          address: expect.stringMatching(/^127\.0\.0\.1:\d+$/),
          metricsAddress: expect.stringMatching(/^127\.0\.0\.1:\d+$/),
        });
        expect(run.output).toContain('"setting":"TRUST_PROXY"'); // warnings are JSON lines too
      } finally {
        await sim.close();
      }
    });

    it('when the start fails, then the reason is a JSON line too', async () => {
      const { port, server } = await occupied();
      const sim = await startSimulator({});
      try {
        const run = await startOutcome({ ...production(sim.restppUrl), PORT: String(port) });
        expect(run.code).toBe(1);
        expect(nonJson(run.output)).toEqual([]);
        expect(run.output).toMatch(
          /"level":60,.*"msg":"failed to start: PORT=\d+ \(on 127\.0\.0\.1\): the port is already in use/,
        );
      } finally {
        server.close();
        await sim.close();
      }
    });

    it('when the configuration is refused, then the refusal is a JSON line', async () => {
      const run = await startOutcome({ NODE_ENV: 'production' });
      expect(run.code).toBe(1);
      expect(nonJson(run.output)).toEqual([]);
      expect(run.output).toContain('"level":60');
      expect(run.output).toContain('SESSION_SECRET');
    });
  });
});
