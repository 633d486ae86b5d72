import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Request, Response, Router } from 'express';
import { parseYaml } from '../../config/yaml.js';
import { strictRoutes } from '../route-helpers/routing.js';

/** docs/openapi.yaml at the package root: the same path from src/http/routes (tests) and dist/http/routes (the build). */
export const DEFAULT_OPENAPI_FILE = fileURLToPath(new URL('../../../docs/openapi.yaml', import.meta.url));

/**
 * The same document as JSON, written by `npm run build` (scripts/build.mjs) to dist/openapi.json: parsing the
 * YAML took about a fifth of a start's CPU (160 ms of 1.1 s). Run from src/ (the tests) it does not exist.
 */
export const BUILT_OPENAPI_FILE = fileURLToPath(new URL('../../openapi.json', import.meta.url));

export const OPENAPI_PATH = '/openapi.json';

/**
 * Which file to serve for the OPENAPI_ROUTE mode. A package installed without docs/ must still start in
 * development, so only an explicit OPENAPI_ROUTE=true insists on the file.
 */
export function openapiFileFor(
  mode: 'required' | 'if-present' | 'off',
  file = DEFAULT_OPENAPI_FILE,
  built = BUILT_OPENAPI_FILE,
): string | null {
  if (mode === 'off') return null;
  if (file === DEFAULT_OPENAPI_FILE && existsSync(built)) return built;
  if (mode === 'if-present' && !existsSync(file)) return null;
  return file;
}

/**
 * `GET /openapi.json`: the OpenAPI document, read and converted to JSON once when the app is built, so a
 * missing or broken file stops the start instead of failing the first caller. The YAML stays the one
 * source people edit; a `.json` file (the build's copy) is only checked and served as it is.
 */
export function openapiRoute(file: string): Router {
  let body: string;
  try {
    const text = readFileSync(file, 'utf8');
    body = file.endsWith('.json') ? JSON.stringify(JSON.parse(text)) : JSON.stringify(parseYaml(text));
  } catch (err) {
    throw new Error(`OPENAPI_ROUTE: cannot serve ${file}: ${(err as Error).message}`, { cause: err });
  }
  const routes = strictRoutes();
  routes.get(OPENAPI_PATH, (_req: Request, res: Response) => {
    res.set('Cache-Control', 'no-cache').type('application/json').send(body);
  });
  return routes.router;
}
