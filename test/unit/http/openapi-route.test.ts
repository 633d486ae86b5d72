import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import express from 'express';
import supertest from 'supertest';
import { parse } from 'yaml';
import { DEFAULT_OPENAPI_FILE, openapiFileFor, openapiRoute } from '../../../src/http/routes/openapi-route.js';

describe('openapi route', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'tgbff-openapi-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  test('when the package has no docs/openapi.yaml, then development serves none and OPENAPI_ROUTE=true stops the start naming the key', () => {
    const missing = path.join(dir, 'missing.yaml');
    expect(openapiFileFor('if-present', missing)).toBeNull();
    expect(openapiFileFor('off', DEFAULT_OPENAPI_FILE)).toBeNull();
    expect(openapiFileFor('if-present', DEFAULT_OPENAPI_FILE)).toBe(DEFAULT_OPENAPI_FILE);
    expect(() => openapiRoute(openapiFileFor('required', missing)!)).toThrow(/^OPENAPI_ROUTE: cannot serve /);
  });

  test("when the build's JSON copy exists, then it is served in place of the default YAML, with the same body", async () => {
    const built = path.join(dir, 'openapi.json');
    expect(openapiFileFor('if-present', DEFAULT_OPENAPI_FILE, built)).toBe(DEFAULT_OPENAPI_FILE);
    await writeFile(built, JSON.stringify(parse(await readFile(DEFAULT_OPENAPI_FILE, 'utf8'))));
    expect(openapiFileFor('if-present', DEFAULT_OPENAPI_FILE, built)).toBe(built);
    expect(openapiFileFor('required', DEFAULT_OPENAPI_FILE, built)).toBe(built);
    expect(openapiFileFor('off', DEFAULT_OPENAPI_FILE, built)).toBeNull();
    // Only the default document has a build copy: a file named in a test is read as it is.
    const other = path.join(dir, 'other.yaml');
    expect(openapiFileFor('required', other, built)).toBe(other);
    const fromJson = await supertest(express().use(openapiRoute(built))).get('/openapi.json');
    const fromYaml = await supertest(express().use(openapiRoute(DEFAULT_OPENAPI_FILE))).get('/openapi.json');
    expect(fromJson.text).toBe(fromYaml.text);
    await writeFile(built, '{"openapi": ');
    expect(() => openapiRoute(built)).toThrow(/^OPENAPI_ROUTE: cannot serve /);
  });

  test('when the YAML is broken, then building the route fails at once instead of at the first request', async () => {
    const broken = path.join(dir, 'broken.yaml');
    await writeFile(broken, 'openapi: [3.1.0\n');
    expect(() => openapiRoute(broken)).toThrow(/^OPENAPI_ROUTE: cannot serve /);
  });

  test('when a file is served, then GET and HEAD answer its JSON and other spellings fall through', async () => {
    const file = path.join(dir, 'small.yaml');
    await writeFile(file, 'openapi: 3.1.0\ninfo: { title: t, version: "1" }\n');
    const app = express().use(openapiRoute(file));
    const res = await supertest(app).get('/openapi.json');
    expect([res.status, res.headers['content-type'], res.body]).toEqual([
      200,
      'application/json; charset=utf-8',
      { openapi: '3.1.0', info: { title: 't', version: '1' } },
    ]);
    expect((await supertest(app).head('/openapi.json')).status).toBe(200);
    expect((await supertest(app).get('/OPENAPI.json')).status).toBe(404);
  });
});
