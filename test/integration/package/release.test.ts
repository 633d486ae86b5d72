import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { installTarballs, npm, seedConsumer } from '../../helpers/consumer-project.js';
import { releaseFolder } from '../../helpers/release-folder.js';

// Issue 41: `npm run release` (scripts/release.mjs) writes one folder a team installs from. Here: its files and
// checksums; each tarball installed into an empty project with no registry beyond the npm cache (a lock file
// seeded with the tested versions); the service's CLI answering --version and the generator --help from
// there; each CycloneDX SBOM listing exactly what installing that package brought; and the example app's
// source with its lock file (test/e2e/react-example.test.ts builds and runs it from there). The image is left
// out (--no-image): no container engine runs here; the script says so when it skips it. The folder is made
// once per jest run and shared with that e2e test (test/helpers/release-folder.ts).
const run = promisify(execFile);
const ROOT = path.resolve('.');
const VERSION = (JSON.parse(await readFile(path.join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
const TARBALLS = {
  service: `tigergraph-bff-${VERSION}.tgz`,
  client: `tigergraph-bff-client-${VERSION}.tgz`,
  browser: `tigergraph-bff-browser-${VERSION}.tgz`,
  codegen: `tigergraph-bff-codegen-${VERSION}.tgz`,
};
const EXAMPLE = `tigergraph-bff-example-react-vite-${VERSION}.tar.gz`;

let work: string;
let out: string;
let printed: string;
beforeAll(async () => {
  work = await mkdtemp(path.join(tmpdir(), 'tgbff-release-'));
  ({ dir: out, printed } = await releaseFolder(path.join(work, 'release')));
}, 600_000); // four packs and four offline installs on a slow, busy machine (when this file builds it)
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
    const expected = [...Object.values(TARBALLS).flatMap((t) => [t, t.replace(/\.tgz$/, '.cdx.json')]), EXAMPLE];
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

  it("when the example app is extracted, then it is the example's source with a lock file of its dependencies", async () => {
    const { stdout } = await run('tar', ['-tzf', path.join(out, EXAMPLE)]);
    const files = stdout.split('\n').filter((f) => f && !f.endsWith('/'));
    expect(files).toEqual(expect.arrayContaining(['react-vite/package.json', 'react-vite/package-lock.json']));
    expect(files).toEqual(expect.arrayContaining(['react-vite/README.md', 'react-vite/src/queries.ts']));
    expect(files.filter((f) => /node_modules|\/dist\//.test(f))).toEqual([]);
    await run('tar', ['-xzf', path.join(out, EXAMPLE), '-C', work]);
    const lock = JSON.parse(await readFile(path.join(work, 'react-vite/package-lock.json'), 'utf8')) as {
      packages: Record<string, { version?: string }>;
    };
    const top = Object.keys(lock.packages)
      .filter((k) => /^node_modules\/(@[^/]+\/)?[^/]+$/.test(k))
      .map((k) => k.slice('node_modules/'.length));
    // Every dependency the example names, except the two it installs from this folder's tarballs.
    const { devDependencies } = JSON.parse(await readFile(path.join(work, 'react-vite/package.json'), 'utf8')) as {
      devDependencies: Record<string, string>;
    };
    for (const dep of Object.keys(devDependencies).filter((d) => !d.startsWith('@tigergraph-bff/')))
      expect(top).toContain(dep);
    expect(Object.keys(lock.packages).filter((k) => k.includes('@tigergraph-bff/'))).toEqual([]);
  });
});
