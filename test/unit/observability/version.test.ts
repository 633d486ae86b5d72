import { readFileSync } from 'node:fs';
import { PassThrough } from 'node:stream';
import { parse as parseYaml } from 'yaml';
import { runCli } from '../../../src/cli/run.js';
import { createMetrics } from '../../../src/observability/metrics.js';
import { packageVersion } from '../../../src/observability/version.js';

// Issue 30 item 3: one version everywhere. Each place is read where a user meets it, not from a shared constant.
const root = new URL('../../../', import.meta.url);
const read = (path: string): string => readFileSync(new URL(path, root), 'utf8');
const rootVersion = (JSON.parse(read('package.json')) as { version: string }).version;

async function cli(argv: string[]): Promise<{ code: number; stdout: string }> {
  let stdout = '';
  const code = await runCli({
    argv,
    env: {},
    homeDir: '/nonexistent',
    stdin: new PassThrough() as never,
    stdout: { write: (t: string) => (stdout += t) },
    stderr: new PassThrough(),
    waitForSignal: () => new Promise(() => undefined),
  });
  return { code, stdout };
}

describe('one version everywhere', () => {
  it('when package.json is read, then its version is a release number, and the one the service reports', () => {
    expect(rootVersion).toMatch(/^\d+\.\d+\.\d+$/);
    expect(packageVersion()).toBe(rootVersion);
  });

  it('when the client package is read, then it has the same version, and the service depends on exactly it', () => {
    const client = JSON.parse(read('packages/client/package.json')) as { version: string };
    const root = JSON.parse(read('package.json')) as { dependencies: Record<string, string> };
    expect(client.version).toBe(rootVersion);
    expect(root.dependencies['@tigergraph-bff/client']).toBe(rootVersion);
  });

  it('when the browser SDK package is read, then it has the same version', () => {
    const browser = JSON.parse(read('packages/browser/package.json')) as { version: string };
    expect(browser.version).toBe(rootVersion);
  });

  it('when the code generator package is read, then it has the same version, and the CLI is built with exactly it', () => {
    // A dev dependency: esbuild bundles it into the CLI, so an install of the service does not need it.
    const codegen = JSON.parse(read('packages/codegen/package.json')) as { version: string };
    const root = JSON.parse(read('package.json')) as { devDependencies: Record<string, string> };
    expect(codegen.version).toBe(rootVersion);
    expect(root.devDependencies['@tigergraph-bff/codegen']).toBe(rootVersion);
  });

  it('when the OpenAPI document is read, then info.version is the package version', () => {
    const doc = parseYaml(read('docs/openapi.yaml')) as { info: { version: string } };
    expect(doc.info.version).toBe(rootVersion);
  });

  it('when CHANGELOG.md is read, then its newest release heading is the package version', () => {
    const releases = [...read('CHANGELOG.md').matchAll(/^## \[(\d+\.\d+\.\d+)\] - \d{4}-\d{2}-\d{2}$/gm)];
    expect(releases[0]?.[1]).toBe(rootVersion);
    // and nothing but Unreleased above it
    const above = read('CHANGELOG.md').slice(0, releases[0]!.index);
    expect([...above.matchAll(/^## .*$/gm)].map((m) => m[0])).toEqual(['## [Unreleased]']);
  });

  it.each([['--version'], ['-V']])(
    'when tgbff %s runs, then it prints the package version and exits 0',
    async (flag) => {
      expect(await cli([flag])).toEqual({ code: 0, stdout: `tgbff ${rootVersion}\n` });
    },
  );

  it('when tgbff --version --json runs, then it prints {"version"}', async () => {
    const { code, stdout } = await cli(['--version', '--json']);
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toEqual({ version: rootVersion });
  });

  it('when a command takes --version, then it is still the TigerGraph version there, not the release', async () => {
    const { code, stdout } = await cli(['token', 'get', '--version', 'banana', '--secret-stdin']);
    expect(code).not.toBe(0);
    expect(stdout).not.toContain(rootVersion);
  });

  it('when the metrics are scraped, then tgbff_build_info carries the package version', async () => {
    const text = await createMetrics({ defaultMetrics: false }).registry.metrics();
    expect(text).toContain(`tgbff_build_info{version="${rootVersion}"} 1`);
  });
});
