import path from 'node:path';
import express, { type Request, type RequestHandler, type Response } from 'express';

/** Vite's build output: `assets/<name>-<8-character content hash>.<ext>`; a new build gives a new name. */
const HASHED_ASSET = /^assets\/(?:[^/]+\/)*[^/]+-[A-Za-z0-9_-]{8}\.[A-Za-z0-9]+$/;
const IMMUTABLE = 'public, max-age=31536000, immutable';
const REVALIDATE = 'no-cache';
/** The service's own paths: a miss there is the service's 404 (JSON), never the app's page. */
const SERVICE_PATHS = /^\/(auth|api|admin)(\/|$)/;

function cacheFor(res: Response, file: string, root: string): void {
  const relative = path.relative(root, file).split(path.sep).join('/');
  res.setHeader('Cache-Control', HASHED_ASSET.test(relative) ? IMMUTABLE : REVALIDATE);
}

/**
 * APP_DIR: a built single-page app at `/`. Its files as they are (hashed assets cached for good, the rest
 * revalidated); any other page a browser navigates to (GET or HEAD, HTML accepted, no file extension, not
 * one of the service's paths) gets index.html, so the app's own router shows it. Everything else falls
 * through to the service's 404.
 */
export function appFiles(root: string): RequestHandler[] {
  const index = path.join(root, 'index.html');
  const files = express.static(root, {
    index: 'index.html',
    fallthrough: true,
    redirect: false,
    setHeaders: (res, file) => cacheFor(res, file, root),
  });
  const fallback: RequestHandler = (req: Request, res: Response, next) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return next();
    if (SERVICE_PATHS.test(req.path) || path.posix.basename(req.path).includes('.')) return next();
    if (!req.accepts('html')) return next();
    res.setHeader('Cache-Control', REVALIDATE);
    res.sendFile(index, { dotfiles: 'deny' }, (err) => (err ? next(err) : undefined));
  };
  return [files, fallback];
}
