import express from 'express';
import { get, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { AppError } from '../../../src/errors.js';
import { errorHandler, notFoundHandler } from '../../../src/http/pipeline/error-handler.js';
import { throughPipeline } from '../../helpers/pipeline-rig.js';
import { captureLogger } from './capture-logger.js';

function app(cap = captureLogger()) {
  const a = express();
  a.post('/json', express.json({ limit: 64 }), (req, res) => {
    res.json({ got: req.body });
  });
  a.get('/app-error', () => {
    throw new AppError('rate_limited', 'Too many attempts', { headers: { 'Retry-After': '30' } });
  });
  a.get('/unavailable', () => {
    throw new AppError('store_unavailable', 'Session store unavailable', {
      cause: new Error('ECONNREFUSED redis:6379'),
    });
  });
  a.get('/boom', () => {
    throw new Error('db said password=hunter2 at /srv/internal.js');
  });
  a.get('/async-boom', async () => {
    await Promise.resolve();
    throw new TypeError('cannot read secret of undefined');
  });
  a.get('/late', (_req, res, next) => {
    res.writeHead(200, { 'Content-Type': 'text/plain' });
    res.write('partial');
    setTimeout(() => next(new Error('stream broke')), 20);
  });
  a.use(notFoundHandler);
  a.use(errorHandler({ logger: cap.logger }));
  // The pipeline gives each request its id, as the front door does for the service's app.
  return throughPipeline((req, res) => a(req, res), { logger: cap.logger });
}

describe('error handler', () => {
  it('when a handler throws an AppError, then its status, headers, code and message reach the client', async () => {
    const res = await request(app()).get('/app-error');
    expect(res.status).toBe(429);
    expect(res.headers['retry-after']).toBe('30');
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.body).toEqual({ error: { code: 'rate_limited', message: 'Too many attempts' } });
  });

  it('when an AppError is a server error, then its public message is sent and its cause only logged', async () => {
    const cap = captureLogger();
    const res = await request(app(cap)).get('/unavailable');
    expect(res.status).toBe(503);
    expect(res.body).toEqual({ error: { code: 'store_unavailable', message: 'Session store unavailable' } });
    expect(res.text).not.toContain('ECONNREFUSED');
    const line = cap.lines().find((l) => l.code === 'store_unavailable');
    expect(line).toMatchObject({ level: 50, requestId: res.headers['x-request-id'] });
    expect(JSON.stringify(line)).toContain('ECONNREFUSED');
  });

  it('when the body is not valid JSON, then 400 invalid_request says so', async () => {
    const res = await request(app())
      .post('/json')
      .set('X-Requested-With', '1')
      .set('Content-Type', 'application/json')
      .send('{"secret": ');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: { code: 'invalid_request', message: 'Request body is not valid JSON' } });
  });

  it('when the body exceeds the limit, then 413 payload_too_large', async () => {
    const res = await request(app())
      .post('/json')
      .set('X-Requested-With', '1')
      .send({ secret: 'x'.repeat(200) });
    expect(res.status).toBe(413);
    expect(res.body).toEqual({ error: { code: 'payload_too_large', message: 'Request body is too large' } });
  });

  it('when the body uses an unsupported charset, then 415 with a JSON error', async () => {
    const res = await request(app())
      .post('/json')
      .set('X-Requested-With', '1')
      .set('Content-Type', 'application/json; charset=klingon')
      .send('{}');
    expect(res.status).toBe(415);
    expect(res.body.error.code).toBe('unsupported_charset');
  });

  it.each(['/boom', '/async-boom'])(
    'when %s fails with an unknown error, then 500 internal_error hides message and stack but the log keeps them',
    async (path) => {
      const cap = captureLogger();
      const res = await request(app(cap)).get(path);
      expect(res.status).toBe(500);
      expect(res.body).toEqual({ error: { code: 'internal_error', message: 'Internal error' } });
      expect(res.text).not.toMatch(/hunter2|secret|\.js|at /);
      const line = cap.lines().find((l) => l.level === 50);
      expect(line).toMatchObject({ requestId: res.headers['x-request-id'], code: 'internal_error' });
      expect((line?.err as { stack?: string }).stack).toContain('Error');
    },
  );

  it('when no route matches, then 404 not_found as JSON', async () => {
    const res = await request(app()).get('/missing');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: { code: 'not_found', message: 'Not found' } });
  });

  it('when the error comes after the response started, then the connection is cut instead of a second response', async () => {
    const cap = captureLogger();
    const server: Server = app(cap).listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const outcome = await new Promise<{ status?: number; body: string; complete: boolean }>((resolve) => {
        get({ host: '127.0.0.1', port, path: '/late' }, (res: IncomingMessage) => {
          let body = '';
          res.setEncoding('utf8');
          res.on('data', (c: string) => (body += c));
          res.on('error', () => undefined);
          res.on('close', () => resolve({ status: res.statusCode, body, complete: res.complete }));
        });
      });
      expect(outcome).toEqual({ status: 200, body: 'partial', complete: false });
      expect(cap.lines().some((l) => l.msg === 'error after response started')).toBe(true);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });
});
