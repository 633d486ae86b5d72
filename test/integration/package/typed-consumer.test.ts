import { execFile } from 'node:child_process';
import { cp, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { installTarballs, pack, seedConsumer, typecheck } from '../../helpers/consumer-project.js';

const run = promisify(execFile);
const ROOT = path.resolve('.');
const FIXTURE = path.join(ROOT, 'test/fixtures/typed-consumer');
// Tools the consumer project installs next to the package, at the versions this repository pins.
const CONSUMER_DEV = ['@types/node', 'typescript'];

let work: string;
let consumer: string;
let files: string[];
beforeAll(async () => {
  work = await mkdtemp(path.join(tmpdir(), 'tgbff-pack-'));
  consumer = path.join(work, 'consumer');
  // dist/ was just built by jest's globalSetup; prepack would only build it again. The service depends on
  // the client package (a workspace here), so its tarball goes in beside, as the registry would supply it.
  const service = await pack(ROOT, work);
  const client = await pack(path.join(ROOT, 'packages/client'), work);
  files = service.files;
  await cp(FIXTURE, consumer, { recursive: true });
  await seedConsumer(consumer, { name: 'typed-consumer', runtime: 'all', dev: CONSUMER_DEV });
  await installTarballs(consumer, [service.tarball, client.tarball]);
}, 300_000); // pack and an offline install: 2 min was not enough on a slow, busy machine
afterAll(() => rm(work, { recursive: true, force: true }));

describe('the packed package, installed into a TypeScript project', () => {
  it('when packed, then the tarball holds the compiled entry points with their declarations', () => {
    for (const f of [
      'dist/index.js',
      'dist/index.d.ts',
      'dist/simulator/index.js',
      'dist/simulator/index.d.ts',
      'dist/cli/main.js',
    ]) {
      expect([f, files.includes(f)]).toEqual([f, true]);
    }
    expect(files.filter((f) => f.startsWith('src/') || f.startsWith('test/'))).toEqual([]);
  });

  it("when package.json names declarations (types, and each export path's types condition), then each is in the tarball", async () => {
    const pkg = JSON.parse(await readFile(path.join(ROOT, 'package.json'), 'utf8')) as {
      types: string;
      exports: Record<string, string | { types?: string; default: string }>;
    };
    const named = [
      pkg.types,
      ...Object.values(pkg.exports).flatMap((e) => (typeof e === 'string' ? [] : [e.types, e.default])),
    ];
    expect(named).toContain('./dist/simulator/index.d.ts');
    // TypeScript falls back to the .d.ts next to `default` when `types` is wrong, so a wrong path would go unnoticed there.
    for (const f of named.map((n) => n!.replace(/^\.\//, ''))) expect([f, files.includes(f)]).toEqual([f, true]);
  });

  it('when a strict NodeNext consumer uses the connection, the token API, the error class and the simulator, then tsc --noEmit passes', async () => {
    // On failure the compiler's own lines (e.g. TS7016 "could not find a declaration file") are the message.
    expect(await typecheck(consumer, 'typed-consumer')).toBe('');
  });

  it('when plain JavaScript imports both export paths, then they load and a token round trip against the simulator works', async () => {
    const { stdout } = await run(process.execPath, ['runtime.mjs'], { cwd: consumer });
    expect(stdout).toBe('round trip ok: string\n');
  });

  it('when the installed bin runs, then tgbff answers --help', async () => {
    const { stdout } = await run(process.execPath, ['node_modules/.bin/tgbff', '--help'], { cwd: consumer });
    expect(stdout).toMatch(/^ {2}token get +mint a token from a secret$/m);
  });
});
