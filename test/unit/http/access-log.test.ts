import express from 'express';
import { request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { contextOf } from '../../../src/http/pipeline/context.js';
import { strictRoutes } from '../../../src/http/route-helpers/routing.js';
import { throughPipeline } from '../../helpers/pipeline-rig.js';
import { until } from '../../helpers/wait.js';
import { captureLogger } from './capture-logger.js';

function app(logger: ReturnType<typeof captureLogger>['logger'], onHang?: () => void) {
  const a = express();
  const root = strictRoutes();
  root.get('/items/:id', (_req, res) => {
    res.status(201).send('hello');
  });
  root.get('/stream', (_req, res) => {
    res.write('abc');
    res.write(Buffer.from('défg'));
    res.end('!');
  });
  root.get('/hang', () => onHang?.());
  const auth = strictRoutes('/auth');
  auth.post('/login', (_req, res) => {
    res.json({ ok: true });
  });
  auth.post('/fail/:id', async () => {
    throw Object.assign(new Error('refused'), { status: 401 });
  });
  a.use(root.router);
  a.use('/auth', auth.router);
  // A handler outside the routers names its route itself, as the /api lane does.
  a.use('/mounted', (req, res) => {
    const ctx = contextOf(req);
    if (ctx) ctx.route = '/mounted/*';
    res.status(202).send(req.url);
  });
  return throughPipeline((req, res) => a(req, res), { logger });
}

describe('access log', () => {
  it('when a routed request finishes, then one line holds method, route pattern, status, duration, id and bytes', async () => {
    const cap = captureLogger();
    const res = await request(app(cap.logger)).get('/items/12345?secret=abc');
    expect(res.status).toBe(201);
    const lines = cap.lines();
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      msg: 'request',
      method: 'GET',
      route: '/items/:id',
      status: 201,
      bytes: 5,
      requestId: res.headers['x-request-id'],
    });
    expect(typeof lines[0]?.durationMs).toBe('number');
    expect(cap.raw[0]).not.toContain('12345');
    expect(cap.raw[0]).not.toContain('secret=abc');
  });

  it('when the route lives in a mounted router, then the pattern includes the mount path', async () => {
    const cap = captureLogger();
    await request(app(cap.logger)).post('/auth/login').set('X-Requested-With', '1').send({ secret: 'x' });
    expect(cap.lines()[0]).toMatchObject({ method: 'POST', route: '/auth/login', status: 200 });
  });

  it('when an async error leaves a mounted router, then the pattern still includes the mount path', async () => {
    const cap = captureLogger();
    const res = await request(app(cap.logger)).post('/auth/fail/12345').set('X-Requested-With', '1');
    expect(res.status).toBe(401);
    expect(cap.lines()).toHaveLength(1);
    expect(cap.lines()[0]).toMatchObject({ method: 'POST', route: '/auth/fail/:id', status: 401 });
    expect(cap.raw[0]).not.toContain('12345');
  });

  it('when a handler names its own route, then that name is logged, not the path', async () => {
    const cap = captureLogger();
    const res = await request(app(cap.logger)).get('/mounted/vertex/alice@example.com');
    expect(res.status).toBe(202);
    expect(cap.lines()[0]).toMatchObject({ route: '/mounted/*', status: 202 });
    expect(cap.raw[0]).not.toContain('alice');
  });

  it('when no route matches, then the path without its query is logged', async () => {
    const cap = captureLogger();
    await request(app(cap.logger)).get('/nowhere/else?token=abc');
    expect(cap.lines()[0]).toMatchObject({ route: '/nowhere/else', status: 404 });
    expect(cap.raw[0]).not.toContain('token=abc');
  });

  it('when a response is streamed without Content-Length, then the written body bytes are counted', async () => {
    const cap = captureLogger();
    const res = await request(app(cap.logger)).get('/stream');
    expect(res.text).toBe('abcdéfg!');
    expect(cap.lines()[0]).toMatchObject({ route: '/stream', bytes: Buffer.byteLength('abcdéfg!') });
  });

  it('when cookie and authorization headers are sent, then neither appears in the line', async () => {
    const cap = captureLogger();
    await request(app(cap.logger))
      .get('/items/1')
      .set('Cookie', '__Host-tgbff=s%3Asession-cookie-value')
      .set('Authorization', 'Bearer bearer-token-value');
    expect(cap.raw).toHaveLength(1);
    for (const needle of ['session-cookie-value', 'bearer-token-value', 'cookie', 'authorization']) {
      expect(cap.raw[0]?.toLowerCase()).not.toContain(needle.toLowerCase());
    }
  });

  it('when the client goes away before the response, then one line marks the request aborted', async () => {
    const cap = captureLogger();
    let hung!: () => void;
    const hangReached = new Promise<void>((resolve) => (hung = resolve));
    const server: Server = app(cap.logger, () => hung()).listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const req = httpRequest({ host: '127.0.0.1', port, path: '/hang' });
      req.on('error', () => undefined);
      req.end();
      await hangReached;
      req.destroy();
      await until('the aborted request to be logged', () => cap.raw.length > 0);
      expect(cap.lines()).toHaveLength(1);
      expect(cap.lines()[0]).toMatchObject({ route: '/hang', aborted: true });
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });
});
