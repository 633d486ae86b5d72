import express from 'express';
import request from 'supertest';
import { helmetConfigured, securityHeaders } from '../../../src/http/pipeline/security-headers.js';
import { throughPipeline } from '../../helpers/pipeline-rig.js';

// The security headers are helmet's, computed once. They must stay exactly what helmet itself sets on a
// real response, whatever helmet version is installed.
async function headersFrom(
  middleware: express.RequestHandler,
  path = '/',
  proto = 'https',
): Promise<Record<string, unknown>> {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', 'loopback');
  app.use(middleware);
  app.get('/{*rest}', (_req, res) => res.end());
  const res = await request(app).get(path).set('X-Forwarded-Proto', proto).expect(200);
  const {
    date: _date,
    connection: _connection,
    'keep-alive': _keepAlive,
    'content-length': _length,
    ...rest
  } = res.headers;
  return rest;
}

/** The headers the service's pipeline sets, less the ones other steps add (request id, CORS's Vary). */
async function pipelineHeaders(proto: string): Promise<Record<string, unknown>> {
  const app = throughPipeline((_req, res) => res.end(), { trustProxy: 'loopback' });
  const res = await request(app).get('/').set('X-Forwarded-Proto', proto).expect(200);
  const {
    date: _date,
    connection: _connection,
    'keep-alive': _keepAlive,
    'content-length': _length,
    'x-request-id': _id,
    vary: _vary,
    ...rest
  } = res.headers;
  return rest;
}

it.each(['https', 'http'] as const)(
  'when the precomputed %s list is set, then the response carries exactly the headers helmet would set',
  async (proto) => {
    const byHelmet = await headersFrom(helmetConfigured(proto), '/', proto);
    expect(Object.keys(byHelmet).length).toBeGreaterThan(8);
    expect(await pipelineHeaders(proto)).toEqual(byHelmet);
    expect(Object.fromEntries(securityHeaders()[proto].map(([name, value]) => [name.toLowerCase(), value]))).toEqual(
      byHelmet,
    );
  },
);

it('when the request came over plain http, then there is no HSTS and no upgrade-insecure-requests, and the CSP is otherwise the same', async () => {
  const https = await pipelineHeaders('https');
  const http = await pipelineHeaders('http');
  expect(https['strict-transport-security']).toMatch(/max-age=\d+/);
  expect(String(https['content-security-policy'])).toContain('upgrade-insecure-requests');
  expect(http['strict-transport-security']).toBeUndefined();
  const withoutUpgrade = String(https['content-security-policy']).replace(/;?upgrade-insecure-requests/, '');
  expect(http['content-security-policy']).toBe(withoutUpgrade);
  expect(http['x-content-type-options']).toBe('nosniff');
});

it('when helmet answers other paths and methods, then its headers do not change (so precomputing is sound)', async () => {
  expect(await headersFrom(helmetConfigured(), '/api/echo?x=1')).toEqual(await headersFrom(helmetConfigured(), '/'));
});
