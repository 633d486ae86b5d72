import express from 'express';
import request from 'supertest';
import { helmetConfigured, helmetMiddleware, securityHeaders } from '../../../src/http/security.js';

// The security headers are helmet's, computed once. They must stay exactly what helmet itself sets on a
// real response, whatever helmet version is installed.
async function headersFrom(middleware: express.RequestHandler, path = '/'): Promise<Record<string, unknown>> {
  const app = express();
  app.disable('x-powered-by');
  app.use(middleware);
  app.get('/{*rest}', (_req, res) => res.end());
  const res = await request(app).get(path).expect(200);
  const { date: _date, connection: _connection, 'keep-alive': _keepAlive, 'content-length': _length, ...rest } = res.headers;
  return rest;
}

it('when the precomputed list is set, then the response carries exactly the headers helmet would set', async () => {
  const byHelmet = await headersFrom(helmetConfigured());
  expect(Object.keys(byHelmet).length).toBeGreaterThan(8);
  expect(await headersFrom(helmetMiddleware())).toEqual(byHelmet);
  expect(Object.fromEntries(securityHeaders().map(([name, value]) => [name.toLowerCase(), value]))).toEqual(byHelmet);
});

it('when helmet answers other paths and methods, then its headers do not change (so precomputing is sound)', async () => {
  expect(await headersFrom(helmetConfigured(), '/api/echo?x=1')).toEqual(await headersFrom(helmetConfigured(), '/'));
});
