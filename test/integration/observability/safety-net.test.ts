import { describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

/**
 * The process-level safety net, in a child process of the built modules (jest itself would fail the test
 * on an uncaught error, which is what in-process tests should keep doing): an exception thrown from a
 * timer and a rejection nobody handled are logged as bugs and counted, and the process carries on.
 */
const dist = (file: string) => pathToFileURL(path.resolve('dist', file)).href;

const SCRIPT = `
import { installSafetyNet } from '${dist('observability/safety-net.js')}';
import { createLogger } from '${dist('observability/logger.js')}';
import { createMetrics } from '${dist('observability/metrics.js')}';
const logger = createLogger({ level: 'info' });
const metrics = createMetrics({ defaultMetrics: false });
installSafetyNet(process, logger, metrics);
setTimeout(() => { throw new Error('boom from a timer'); }, 10);
setTimeout(() => { Promise.reject(new Error('nobody awaited me')); }, 20);
setTimeout(async () => {
  const text = await metrics.registry.metrics();
  process.stdout.write('METRICS ' + JSON.stringify(text.split('\\n').filter((l) => l.startsWith('tgbff_uncaught'))) + '\\n');
  process.stdout.write('STILL RUNNING\\n');
}, 100);
`;

describe('process safety net', () => {
  it('when an exception and a rejection escape every handler, then each is logged as a bug, counted, and the process carries on', async () => {
    const { code, out } = await new Promise<{ code: number | null; out: string }>((resolve) => {
      const child = execFile(
        process.execPath,
        ['--input-type=module', '-e', SCRIPT],
        { timeout: 10_000 },
        (err, stdout, stderr) =>
          resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, out: stdout + stderr }),
      );
      child.stdin?.end();
    });

    expect(code).toBe(0);
    expect(out).toContain('STILL RUNNING');
    expect(out).toMatch(/"msg":"uncaught exception \(bug\)[^"]*"/);
    expect(out).toContain('boom from a timer');
    expect(out).toMatch(/"msg":"unhandled promise rejection \(bug\)[^"]*"/);
    const metrics = JSON.parse(/METRICS (.*)/.exec(out)![1]!) as string[];
    expect(metrics).toEqual(
      expect.arrayContaining([
        'tgbff_uncaught_errors_total{kind="exception"} 1',
        'tgbff_uncaught_errors_total{kind="rejection"} 1',
      ]),
    );
  });
});
