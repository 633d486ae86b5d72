import request from 'supertest';
import { LISTED, securityApp } from './security-app.js';

const corsHeaders = (headers: Record<string, string>) =>
  Object.keys(headers).filter((h) => h.startsWith('access-control-'));

describe('CORS', () => {
  it('when a listed origin calls, then its origin is echoed with credentials and Origin in Vary', async () => {
    const res = await request(securityApp().app).get('/auth/session').set('Origin', LISTED);
    expect(res.status).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBe(LISTED);
    expect(res.headers['access-control-allow-credentials']).toBe('true');
    expect(res.headers['access-control-expose-headers']).toBe('X-Request-Id');
    expect(res.headers.vary).toMatch(/\bOrigin\b/);
  });

  it("when a listed origin calls in another spelling (case, default port), then it matches and the listed form is echoed, not the caller's", async () => {
    const res = await request(securityApp().app).get('/auth/session').set('Origin', 'HTTPS://App.Example.COM:443');
    expect(res.headers['access-control-allow-origin']).toBe(LISTED);
  });

  it.each(['https://app.example.com.evil.com', 'null', 'https://app.example.com:444'])(
    'when the Origin is %s, then no CORS header is sent',
    async (origin) => {
      const res = await request(securityApp().app).get('/auth/session').set('Origin', origin);
      expect(corsHeaders(res.headers)).toEqual([]);
    },
  );

  it('when an unlisted origin calls, then no CORS header is sent at all', async () => {
    const res = await request(securityApp().app).get('/auth/session').set('Origin', 'https://evil.example.com');
    expect(res.status).toBe(200);
    expect(corsHeaders(res.headers)).toEqual([]);
    expect(res.headers.vary).toMatch(/\bOrigin\b/);
  });

  it('when a listed origin preflights, then 204 allows the CSRF header and Content-Type without reaching routes', async () => {
    const { app, hits } = securityApp();
    const res = await request(app)
      .options('/api/graph/social')
      .set('Origin', LISTED)
      .set('Access-Control-Request-Method', 'POST')
      .set('Access-Control-Request-Headers', 'x-requested-with, content-type');
    expect(res.status).toBe(204);
    expect(res.headers['access-control-allow-origin']).toBe(LISTED);
    expect(res.headers['access-control-allow-credentials']).toBe('true');
    expect(res.headers['access-control-allow-methods']).toContain('POST');
    const allowed = res.headers['access-control-allow-headers']?.split(/,\s*/);
    expect(allowed).toEqual(expect.arrayContaining(['x-requested-with', 'content-type']));
    expect(hits).toEqual([]);
  });

  it('when an unlisted origin preflights an /api path, then it gets no CORS headers and the guard refuses it', async () => {
    const { app, hits } = securityApp();
    const res = await request(app)
      .options('/api/graph/social')
      .set('Origin', 'https://evil.example.com')
      .set('Access-Control-Request-Method', 'POST');
    expect(corsHeaders(res.headers)).toEqual([]);
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('csrf_rejected');
    expect(hits).toEqual([]);
  });
});

describe('helmet', () => {
  it('when any response is sent, then helmet headers and a CSP without inline script or style are present', async () => {
    const res = await request(securityApp({}, true).app).get('/').set('X-Forwarded-Proto', 'https');
    const csp = res.headers['content-security-policy'] ?? '';
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain('unsafe-inline');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['strict-transport-security']).toMatch(/max-age=\d+/);
    expect(res.headers['x-frame-options']).toBe('SAMEORIGIN');
    expect(res.headers['cross-origin-opener-policy']).toBe('same-origin');
    expect(res.headers['referrer-policy']).toBe('no-referrer');
  });
});
