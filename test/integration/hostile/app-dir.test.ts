import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import supertest from 'supertest';
import { loadConfig } from '../../../src/config.js';
import { startRig, type Rig } from '../../helpers/app-rig.js';

// Issue 41 (a new route, so here with the hostile ones): APP_DIR serves a team's built single-page app at / (the demo console off), with the page
// fallback for its routes, a year's cache for hashed assets, and the service's CSP; DEMO_CONSOLE=false
// serves nothing at /. Each request here is one a browser or an attacker could send.
const ASSET = 'assets/index-Ab1_-xY9.js';
let dir: string;
let rig: Rig;
let off: Rig;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'tgbff-app-dir-'));
  await mkdir(path.join(dir, 'assets'));
  await writeFile(path.join(dir, 'index.html'), '<!doctype html><title>team app</title>');
  await writeFile(path.join(dir, ASSET), 'console.log(1)');
  await writeFile(path.join(dir, 'assets/logo.svg'), '<svg/>');
  await writeFile(path.join(dir, '.env'), 'SECRET=1');
  [rig, off] = await Promise.all([
    startRig({ env: { APP_DIR: dir }, label: 'app-dir' }),
    startRig({ env: { DEMO_CONSOLE: 'false' }, label: 'app-dir-off' }),
  ]);
});
afterAll(async () => {
  await Promise.all([rig?.close(), off?.close()]);
  await rm(dir, { recursive: true, force: true });
});

const get = (r: Rig, p: string, accept = 'text/html') => supertest(r.service.app).get(p).set('Accept', accept);

describe('APP_DIR: a built app served at /', () => {
  it("when / is asked for, then the app's index.html comes, revalidated, under the service's CSP", async () => {
    const res = await get(rig, '/');
    expect([res.status, res.text]).toEqual([200, '<!doctype html><title>team app</title>']);
    expect(res.headers['cache-control']).toBe('no-cache');
    expect(res.headers['content-security-policy']).toContain("script-src 'self'");
  });

  it('when a hashed asset is asked for, then it is cached for a year, immutable; an unhashed one is revalidated', async () => {
    expect((await get(rig, `/${ASSET}`, '*/*')).headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect((await get(rig, '/assets/logo.svg', '*/*')).headers['cache-control']).toBe('no-cache');
  });

  it('when a browser navigates to an app route, then index.html answers; a missing file is a 404', async () => {
    const page = await get(rig, '/people/alice');
    expect([page.status, page.text]).toEqual([200, '<!doctype html><title>team app</title>']);
    expect((await get(rig, '/assets/missing-Ab1_-xY9.js', '*/*')).status).toBe(404);
    expect((await get(rig, '/favicon.ico')).status).toBe(404);
    // Not a page view (JSON asked for): the service's 404, not HTML a script would choke on.
    expect((await get(rig, '/people/alice', 'application/json')).status).toBe(404);
  });

  it("when the service's own paths or other methods miss, then its JSON 404, never the app's page", async () => {
    for (const p of ['/auth/nosuch', '/admin', '/admin/x']) {
      const res = await get(rig, p);
      expect([p, res.status, res.headers['content-type']]).toEqual([p, 404, expect.stringContaining('json')]);
    }
    const post = await supertest(rig.service.app)
      .post('/people/alice')
      .set({ 'X-Requested-With': 'XMLHttpRequest', Accept: 'text/html' });
    expect(post.status).toBe(404);
  });

  it('when a path climbs out of the folder or names a dotfile, then nothing of the disk is served', async () => {
    for (const p of ['/../package.json', '/%2e%2e/package.json', '/assets/..%2f..%2fpackage.json', '/.env']) {
      const res = await get(rig, p, '*/*');
      expect([p, res.text.includes('SECRET=1') || res.text.includes('"name"')]).toEqual([p, false]);
      expect([p, res.status]).toEqual([p, 404]);
    }
  });

  it('when APP_DIR is set, then the demo console is not served; DEMO_CONSOLE=false serves nothing at /', async () => {
    expect((await get(rig, '/app.js', '*/*')).status).toBe(404);
    expect((await get(off, '/')).status).toBe(404);
    expect((await get(off, '/app.js', '*/*')).status).toBe(404);
  });

  it('when APP_DIR has no index.html or DEMO_CONSOLE is on beside it, then the start is refused naming the key', () => {
    expect(() => loadConfig({ APP_DIR: path.join(dir, 'assets') })).toThrow(/APP_DIR: has no index.html/);
    expect(() => loadConfig({ APP_DIR: path.join(dir, 'nosuch') })).toThrow(/APP_DIR: is not a readable directory/);
    expect(() => loadConfig({ APP_DIR: dir, DEMO_CONSOLE: 'true' })).toThrow(/DEMO_CONSOLE: cannot be on with APP_DIR/);
    expect(loadConfig({ APP_DIR: dir }).demoConsole).toBe(false);
  });
});
