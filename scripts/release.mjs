// `npm run release`: everything a team installs from, in one folder (release/tigergraph-bff-<version>/ unless
// --out DIR): a tarball of each package (the service, @tigergraph-bff/client, @tigergraph-bff/browser,
// @tigergraph-bff/codegen), the container image saved as a tarball when a container engine answers
// (skipped with a line saying so otherwise, or with --no-image), a CycloneDX SBOM of each package's runtime
// dependencies, the example app's source (examples/react-vite, with a lock file) and SHA256SUMS over all of
// it (`sha256sum -c SHA256SUMS` checks them). docs/install.md.
//
// Each SBOM is `npm sbom` of an empty project that installed that package's tarball (and its sibling
// tarballs it depends on) with dev dependencies left out: exactly what `npm install <tarball>` brings, not
// what the monorepo happens to have. Those installs are offline, from the npm cache `npm ci` filled, with
// a lock file seeded from this repository's, so the versions are the tested ones.
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const flag = (name) => args.includes(name);
const option = (name) => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);

const PACKAGES = ['.', 'packages/client', 'packages/browser', 'packages/codegen'];
const manifest = (dir) => JSON.parse(readFileSync(join(ROOT, dir, 'package.json'), 'utf8'));
const version = manifest('.').version;
const out = resolve(option('--out') ?? join(ROOT, 'release', `tigergraph-bff-${version}`));
const say = (line) => process.stdout.write(`${line}\n`);
const npm = (argv, cwd) => execFileSync('npm', argv, { cwd, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });

if (!flag('--skip-build')) {
  say('build: npm run build');
  execFileSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'inherit' });
}
rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });

// 1. The tarballs (built above: no prepack again).
const packed = new Map();
for (const dir of PACKAGES) {
  const [info] = JSON.parse(npm(['pack', '--ignore-scripts', '--json', '--pack-destination', out], join(ROOT, dir)));
  packed.set(manifest(dir).name, join(out, info.filename));
  say(`pack: ${info.filename} (${info.files.length} files)`);
}

// This repository's lock: the tested versions the example's lock file and the SBOMs' projects name.
const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')).packages;

// 1b. The example app (examples/react-vite): its source as its package.json's `files` names it, and a lock
// file of its dependencies at the versions tested here, in a tarball a developer extracts (not an npm
// package): `tar -xzf` gives react-vite/, whose README says the rest (the two frontend tarballs above are
// what it installs from this folder).
const EXAMPLE = 'examples/react-vite';
const exampleFile = `tigergraph-bff-example-react-vite-${version}.tar.gz`;
const stage = mkdtempSync(join(tmpdir(), 'tgbff-example-'));
try {
  const [listed] = JSON.parse(npm(['pack', '--dry-run', '--ignore-scripts', '--json'], join(ROOT, EXAMPLE)));
  for (const { path } of listed.files) cpSync(join(ROOT, EXAMPLE, path), join(stage, 'react-vite', path));
  const app = manifest(EXAMPLE);
  const root = { name: app.name, version: app.version, license: app.license, devDependencies: app.devDependencies };
  const entries = lockEntries(EXAMPLE, Object.keys(app.devDependencies));
  writeFileSync(join(stage, 'react-vite', 'package-lock.json'), lockFile(root, entries));
  execFileSync('tar', ['-czf', join(out, exampleFile), '-C', stage, 'react-vite']);
  say(`example: ${exampleFile} (${listed.files.length + 1} files; tar -xzf it)`);
} finally {
  rmSync(stage, { recursive: true, force: true });
}

// 2. The SBOMs: one empty project per package, its tarball installed, `npm sbom` of that.
for (const dir of PACKAGES) {
  const { name } = manifest(dir);
  const tarballs = [packed.get(name), ...siblingsOf(dir).map((s) => packed.get(s))];
  const project = mkdtempSync(join(tmpdir(), 'tgbff-sbom-'));
  try {
    seed(project, dir);
    install(project, tarballs);
    const sbom = JSON.parse(npm(['sbom', '--sbom-format', 'cyclonedx', '--omit', 'dev'], project));
    const file = `${basename(packed.get(name), '.tgz')}.cdx.json`;
    writeFileSync(join(out, file), `${JSON.stringify(asPackageSbom(sbom, name), null, 2)}\n`);
    say(`sbom: ${file}`);
  } finally {
    rmSync(project, { recursive: true, force: true });
  }
}

// 3. The image, when an engine answers.
if (flag('--no-image')) say('image: skipped (--no-image)');
else if (spawnSync('docker', ['info'], { stdio: 'ignore' }).status !== 0)
  say('image: skipped: no container engine answers `docker info` (docs/deploying.md says how to build it)');
else {
  const tag = `tigergraph-bff:${version}`;
  // NODE_IMAGE: another Node.js base image (the Dockerfile's ARG), e.g. one built locally where no registry is reachable.
  const base = process.env.NODE_IMAGE ? ['--build-arg', `NODE_IMAGE=${process.env.NODE_IMAGE}`] : [];
  execFileSync('docker', ['build', ...base, '-t', tag, '.'], { cwd: ROOT, stdio: 'inherit' });
  execFileSync('docker', ['save', '-o', join(out, `tigergraph-bff-${version}-image.tar`), tag], { stdio: 'inherit' });
  say(`image: tigergraph-bff-${version}-image.tar (docker load -i it)`);
}

// 4. The checksums, in sha256sum's format.
const sums = readdirSync(out)
  .filter((f) => f !== 'SHA256SUMS')
  .sort()
  .map(
    (f) =>
      `${createHash('sha256')
        .update(readFileSync(join(out, f)))
        .digest('hex')}  ${f}`,
  );
writeFileSync(join(out, 'SHA256SUMS'), `${sums.join('\n')}\n`);
say(`release: ${out}`);

/** The repository's own packages a package depends on at run time (installed from their tarballs too). */
function siblingsOf(dir) {
  const deps = Object.keys(manifest(dir).dependencies ?? {});
  return PACKAGES.map((d) => manifest(d).name).filter((n) => deps.includes(n));
}

/**
 * The package-lock.json entries that `deps`, needed by the package at `base` ('' for the root), reach in this
 * repository's lock: each dependency where npm's resolution finds it (nested under the one that needs it,
 * else under its parents, else on top), with its own dependencies, optional ones included (every
 * platform's binaries: npm picks one when it installs). Workspace links are left out (their tarballs stand
 * in). Keys are made relative to `base`, as the lock of a project of its own has them.
 */
function lockEntries(base, deps) {
  const packages = {};
  const resolveKey = (from, dep) => {
    for (let at = from; ; at = at.includes('/node_modules/') ? at.slice(0, at.lastIndexOf('/node_modules/')) : '') {
      const key = `${at ? `${at}/` : ''}node_modules/${dep}`;
      if (lock[key]) return key;
      if (!at) return undefined;
    }
  };
  const add = (from, dep) => {
    const key = resolveKey(from, dep);
    const entry = key && lock[key];
    if (!entry || entry.link || packages[key]) return;
    packages[key] = entry;
    for (const next of Object.keys({ ...entry.dependencies, ...entry.optionalDependencies })) add(key, next);
  };
  for (const dep of deps) add(base, dep);
  const rebased = {};
  for (const [key, entry] of Object.entries(packages)) {
    const own = base && key.startsWith(`${base}/`) ? key.slice(base.length + 1) : key;
    if (rebased[own]) throw new Error(`${base}: ${own} is in the lock twice, at two places; cannot flatten it`);
    rebased[own] = entry;
  }
  return rebased;
}

/** A lock file whose root is `root` (a package.json's fields) and whose entries are `packages`. */
function lockFile(root, packages) {
  const file = {
    name: root.name,
    version: root.version,
    lockfileVersion: 3,
    requires: true,
    packages: { '': root, ...packages },
  };
  return `${JSON.stringify(file, null, 2)}\n`;
}

/**
 * An empty project whose lock file holds the package's runtime dependencies at this repository's versions
 * (every non-dev, non-workspace entry of package-lock.json the package's closure reaches): with it,
 * `npm install --offline` needs no registry, only the cache.
 */
function seed(project, dir) {
  const deps = [dir, ...siblingsOf(dir).map((n) => PACKAGES.find((p) => manifest(p).name === n))].flatMap((d) =>
    Object.keys(manifest(d).dependencies ?? {}),
  );
  const root = { name: 'tgbff-release-sbom', version: '0.0.0', private: true };
  writeFileSync(join(project, 'package.json'), JSON.stringify(root));
  writeFileSync(join(project, 'package-lock.json'), lockFile(root, lockEntries('', deps)));
}

/** Offline from the cache; a cache emptied since `npm ci` falls back to the registry. */
function install(project, tarballs) {
  const argv = ['install', '--no-audit', '--no-fund', '--ignore-scripts', ...tarballs];
  try {
    npm(['--offline', ...argv], project);
  } catch (err) {
    if (!String(err.stderr).includes('ENOTCACHED')) throw err;
    npm(['--prefer-offline', ...argv], project);
  }
}

/** The empty project's SBOM made the package's: it is the subject, its dependencies the components. */
function asPackageSbom(sbom, name) {
  const self = sbom.components.find((c) => (c.group ? `${c.group}/${c.name}` : c.name) === name);
  const projectRef = sbom.metadata.component['bom-ref'];
  return {
    ...sbom,
    metadata: { ...sbom.metadata, component: self },
    components: sbom.components.filter((c) => c !== self),
    dependencies: (sbom.dependencies ?? []).filter((d) => d.ref !== projectRef),
  };
}
