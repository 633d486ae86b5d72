import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { installTarballs, npm, seedConsumer } from '../../helpers/consumer-project.js';

// Issue 41: `npm run release` (scripts/release.mjs) writes one folder a team installs from. Here: its files and
// checksums; each tarball installed into an empty project with no registry beyond the npm cache (a lock file
// seeded with the tested versions); the service's CLI answering --version and the generator --help from
// there; and each CycloneDX SBOM listing exactly what installing that package brought. The image is left
// out (--no-image): no container engine runs here; the script says so when it skips it.
const run = promisify(execFile);
const ROOT = path.resolve('.');
const VERSION = (JSON.parse(await readFile(path.join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
const TARBALLS = {
  service: `tigergraph-bff-${VERSION}.tgz`,
  client: `tigergraph-bff-client-${VERSION}.tgz`,
  browser: `tigergraph-bff-browser-${VERSION}.tgz`,
  codegen: `tigergraph-bff-codegen-${VERSION}.tgz`,
};

let work: string;
let out: string;
let printed: string;
beforeAll(async () => {
  work = await mkdtemp(path.join(tmpdir(), 'tgbff-release-'));
  out = path.join(work, 'release');
  // dist/ and the packages' dist/ were built by jest's globalSetup.
  printed = (
    await run(process.execPath, ['scripts/release.mjs', '--skip-build', '--no-image', '--out', out], {
      cwd: ROOT,
      maxBuffer: 16 * 1024 * 1024,
    })
  ).stdout;
}, 600_000); // four packs and four offline installs on a slow, busy machine
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

/** What an empty project holds after installing `tarballs`, as name@version (dev tools left out). */
async function installed(name: string, runtime: string[] | 'all', tarballs: string[]): Promise<string[]> {
  const dir = path.join(work, name);
  await mkdir(dir);
  await seedConsumer(dir, { name, runtime, dev: [] });
  await installTarballs(
    dir,
    tarballs.map((t) => path.join(out, t)),
  );
  const { stdout } = await npm(['ls', '--all', '--omit=dev', '--parseable', '--long'], dir);
  return [
    ...new Set(
      stdout
        .split('\n')
        .filter((line) => line.includes(`${path.sep}node_modules${path.sep}`))
        .map((line) => line.split(':')[1]!),
    ),
  ].sort();
}

async function sbom(tarball: string): Promise<{ subject: string; components: string[] }> {
  const doc = JSON.parse(await readFile(path.join(out, tarball.replace(/\.tgz$/, '.cdx.json')), 'utf8')) as {
    bomFormat: string;
    metadata: { component: { name: string; version: string } };
    components: Array<{ name: string; version: string }>;
  };
  expect(doc.bomFormat).toBe('CycloneDX');
  const id = (c: { name: string; version: string }) => `${c.name}@${c.version}`;
  return { subject: id(doc.metadata.component), components: [...new Set(doc.components.map(id))].sort() };
}

describe('npm run release: one folder to install from', () => {
  it('when it runs, then the folder holds each tarball, each SBOM and SHA256SUMS, which check out', async () => {
    const files = (await readdir(out)).sort();
    const expected = Object.values(TARBALLS).flatMap((t) => [t, t.replace(/\.tgz$/, '.cdx.json')]);
    expect(files).toEqual([...expected, 'SHA256SUMS'].sort());
    const { stdout } = await run('sha256sum', ['-c', 'SHA256SUMS'], { cwd: out });
    expect(stdout.trim().split('\n').sort()).toEqual(expected.map((f) => `${f}: OK`).sort());
    expect(printed).toContain('image: skipped (--no-image)');
  });

  it('when the service is installed from its tarballs, then its CLI answers --version and its SBOM lists what came', async () => {
    const tree = await installed('service', 'all', [TARBALLS.service, TARBALLS.client]);
    const { stdout } = await run(path.join(work, 'service/node_modules/.bin/tgbff'), ['--version']);
    expect(stdout).toContain(VERSION);
    const { subject, components } = await sbom(TARBALLS.service);
    expect(subject).toBe(`tigergraph-bff@${VERSION}`);
    expect(components).toEqual(tree.filter((p) => p !== subject));
  });

  it('when the frontend packages are installed, then the generator answers --help and neither brings a dependency', async () => {
    const tree = await installed('frontend', [], [TARBALLS.browser, TARBALLS.codegen]);
    expect(tree).toEqual([`@tigergraph-bff/browser@${VERSION}`, `@tigergraph-bff/codegen@${VERSION}`]);
    const { stdout } = await run(path.join(work, 'frontend/node_modules/.bin/tgbff-codegen'), ['--help']);
    expect(stdout).toContain('Usage: tgbff-codegen --graph NAME');
    for (const t of [TARBALLS.browser, TARBALLS.codegen]) expect((await sbom(t)).components).toEqual([]);
  });

  it('when the client library is installed, then its SBOM lists exactly what came with it', async () => {
    const tree = await installed('client', ['undici'], [TARBALLS.client]);
    const { subject, components } = await sbom(TARBALLS.client);
    expect(subject).toBe(`@tigergraph-bff/client@${VERSION}`);
    expect(components).toEqual(tree.filter((p) => p !== subject));
    expect(components.map((c) => c.replace(/@[^@]+$/, ''))).toEqual(['undici']);
  });
});
