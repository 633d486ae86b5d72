import { execFile } from 'node:child_process';
import { cp, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { startSimulator, type SimulatorHandle } from '../../../src/simulator/index.js';
import { installTarballs, npm, pack, seedConsumer, typecheck } from '../../helpers/consumer-project.js';

// Issue 30 item 4: the client library as a package of its own. Packed, installed into an empty project
// (offline, from the npm cache npm ci filled), compiled by a strict consumer and run against the simulator.
const run = promisify(execFile);
const ROOT = path.resolve('.');
const CLIENT = path.join(ROOT, 'packages/client');
const FIXTURE = path.join(ROOT, 'test/fixtures/client-consumer');
const CONSUMER_DEV = ['@types/node', 'typescript'];
const SERVER_PACKAGES = ['express', 'ioredis', 'pino', 'prom-client', 'openid-client', 'helmet', 'zod', 'jose'];

let work: string;
let consumer: string;
let files: string[];
let sim: SimulatorHandle;
beforeAll(async () => {
  work = await mkdtemp(path.join(tmpdir(), 'tgbff-client-pack-'));
  consumer = path.join(work, 'consumer');
  // packages/client/dist was built by jest's globalSetup (scripts/build.mjs builds it first).
  const packed = await pack(CLIENT, work);
  files = packed.files;
  await cp(FIXTURE, consumer, { recursive: true });
  await seedConsumer(consumer, { name: 'client-consumer', runtime: ['undici'], dev: CONSUMER_DEV });
  await installTarballs(consumer, [packed.tarball]);
  sim = await startSimulator();
}, 300_000); // pack and an offline install: 2 min was not enough on a slow, busy machine
afterAll(async () => {
  await sim?.close();
  await rm(work, { recursive: true, force: true });
});

const manifest = async (dir: string) =>
  JSON.parse(await readFile(path.join(dir, 'package.json'), 'utf8')) as {
    name: string;
    version: string;
    license: string;
    types: string;
    dependencies?: Record<string, string>;
    exports: Record<string, string | { types?: string; default: string }>;
  };

describe('@tigergraph-bff/client, packed and installed into an empty project', () => {
  it('when packed, then the tarball holds its entry, declarations, README and LICENSE, and nothing of the server', async () => {
    for (const f of [
      'dist/index.js',
      'dist/index.d.ts',
      'dist/capabilities.d.ts',
      'README.md',
      'LICENSE',
      'package.json',
    ])
      expect([f, files.includes(f)]).toEqual([f, true]);
    expect(files.filter((f) => !/^(dist\/|README\.md$|LICENSE$|package\.json$)/.test(f))).toEqual([]);
    const pkg = await manifest(CLIENT);
    const named = [
      pkg.types,
      ...Object.values(pkg.exports).flatMap((e) => (typeof e === 'string' ? [e] : [e.types, e.default])),
    ];
    for (const f of named.map((n) => n!.replace(/^\.\//, ''))) expect([f, files.includes(f)]).toEqual([f, true]);
  });

  it('when its package.json is read, then it depends on undici only and carries the root version and license', async () => {
    const [client, root] = await Promise.all([manifest(CLIENT), manifest(ROOT)]);
    expect(client.name).toBe('@tigergraph-bff/client');
    expect(Object.keys(client.dependencies ?? {})).toEqual(['undici']);
    expect([client.version, client.license]).toEqual([root.version, root.license]);
    // The service consumes it by that name, at that version.
    expect(root.dependencies?.['@tigergraph-bff/client']).toBe(client.version);
  });

  it('when installed, then the project holds the client and undici, and none of the server’s dependencies', async () => {
    const { stdout } = await npm(['ls', '--omit=dev', '--all', '--parseable'], consumer);
    const installed = stdout
      .split('\n')
      .filter(Boolean)
      .map((p) => path.relative(path.join(consumer, 'node_modules'), p))
      .filter((p) => p !== '' && !p.startsWith('..'));
    expect(installed.sort()).toEqual(['@tigergraph-bff/client', 'undici']);
    const top = await readdir(path.join(consumer, 'node_modules'));
    expect(SERVER_PACKAGES.filter((p) => top.includes(p))).toEqual([]);
  });

  it('when its README links somewhere relative, then the target is in the package', async () => {
    const readme = await readFile(path.join(consumer, 'node_modules/@tigergraph-bff/client/README.md'), 'utf8');
    const links = [...readme.matchAll(/\]\(([^)#]+)(?:#[^)]*)?\)/g)]
      .map((m) => m[1]!)
      .filter((l) => !/^[a-z]+:/.test(l));
    expect(links.length).toBeGreaterThan(0);
    for (const link of links) expect([link, files.includes(path.normalize(link))]).toEqual([link, true]);
  });

  it('when a strict NodeNext consumer uses it, then tsc --noEmit passes and a 3.6+ getToken is a string without narrowing', async () => {
    expect(await typecheck(consumer, 'client-consumer')).toBe('');
  });

  it('when plain JavaScript runs it against the simulator, then a token round trip works and an unknown graph is graph_not_found', async () => {
    const { value: secret } = sim.createSecret({ graph: 'social', alias: 'client_pack' });
    const { stdout } = await run(process.execPath, ['runtime.mjs'], {
      cwd: consumer,
      env: {
        PATH: process.env.PATH,
        RESTPP_URL: sim.restppUrl,
        GSQL_URL: sim.gsqlUrl,
        TG_SECRET: secret,
        TG_VERSION: sim.version,
      },
    });
    expect(stdout).toBe('string string graph_not_found json\n');
  });
});
