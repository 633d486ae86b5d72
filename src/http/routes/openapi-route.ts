import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Request, Response, Router } from 'express';
import { parse } from 'yaml';
import { strictRoutes } from '../route-helpers/routing.js';

/** docs/openapi.yaml at the package root: the same path from src/http/routes (tests) and dist/http/routes (the build). */
export const DEFAULT_OPENAPI_FILE = fileURLToPath(new URL('../../../docs/openapi.yaml', import.meta.url));

export const OPENAPI_PATH = '/openapi.json';

/**
 * Which file to serve for the OPENAPI_ROUTE mode. A package installed without docs/ must still start in
 * development, so only an explicit OPENAPI_ROUTE=true insists on the file.
 */
export function openapiFileFor(mode: 'required' | 'if-present' | 'off', file = DEFAULT_OPENAPI_FILE): string | null {
  if (mode === 'off' || (mode === 'if-present' && !existsSync(file))) return null;
  return file;
}

/**
 * `GET /openapi.json`: the OpenAPI document, read and converted to JSON once when the app is built, so a
 * missing or broken file stops the start instead of failing the first caller. The YAML stays the one
 * source people edit.
 */
export function openapiRoute(file: string): Router {
  let body: string;
  try {
    body = JSON.stringify(parse(readFileSync(file, 'utf8')));
  } catch (err) {
    throw new Error(`OPENAPI_ROUTE: cannot serve ${file}: ${(err as Error).message}`, { cause: err });
  }
  const routes = strictRoutes();
  routes.get(OPENAPI_PATH, (_req: Request, res: Response) => {
    res.set('Cache-Control', 'no-cache').type('application/json').send(body);
  });
  return routes.router;
}
