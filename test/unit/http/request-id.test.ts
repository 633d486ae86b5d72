import request from 'supertest';
import { throughPipeline } from '../../helpers/pipeline-rig.js';

function app() {
  return throughPipeline((_req, res, ctx) => {
    res.setHeader('Content-Type', 'application/json');
    res.end(JSON.stringify({ seen: ctx.requestId }));
  });
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('request id', () => {
  it('when the caller sends a safe X-Request-Id, then it is kept, stored and echoed', async () => {
    const res = await request(app()).get('/').set('X-Request-Id', 'front-end.42:a_b-c');
    expect(res.status).toBe(200);
    expect(res.headers['x-request-id']).toBe('front-end.42:a_b-c');
    expect(res.body).toEqual({ seen: 'front-end.42:a_b-c' });
  });

  it.each([
    ['contains spaces', 'two words'],
    ['is too long', 'a'.repeat(129)],
    ['carries markup', '<script>x</script>'],
    ['carries a log-forging newline escape', 'id\\nlevel=error'],
  ])('when the caller id %s, then a fresh UUID replaces it', async (_why, given) => {
    const res = await request(app()).get('/').set('X-Request-Id', given);
    expect(res.headers['x-request-id']).toMatch(UUID);
    expect(res.body.seen).toBe(res.headers['x-request-id']);
  });

  it('when no id is sent, then each request gets its own UUID', async () => {
    const a = app();
    const [one, two] = await Promise.all([request(a).get('/'), request(a).get('/')]);
    expect(one.headers['x-request-id']).toMatch(UUID);
    expect(two.headers['x-request-id']).toMatch(UUID);
    expect(one.headers['x-request-id']).not.toBe(two.headers['x-request-id']);
  });

  it('when the id is exactly 128 safe characters, then it is accepted', async () => {
    const id = 'x'.repeat(128);
    const res = await request(app()).get('/').set('X-Request-Id', id);
    expect(res.headers['x-request-id']).toBe(id);
  });
});
