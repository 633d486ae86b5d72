import { statSync } from 'node:fs';
import path from 'node:path';
import { Invalid } from './fields.js';

/**
 * APP_DIR: a built single-page app (e.g. Vite's `dist/`) the service serves at `/`. Resolved once, here, to
 * an absolute path; a directory without index.html is refused at start-up rather than found at the first
 * page load.
 */
export function appDir(raw: string): string {
  const dir = path.resolve(raw);
  let isDir: boolean;
  try {
    isDir = statSync(dir).isDirectory();
  } catch {
    throw new Invalid('is not a readable directory');
  }
  if (!isDir) throw new Invalid('is not a directory');
  try {
    if (!statSync(path.join(dir, 'index.html')).isFile()) throw new Error('not a file');
  } catch {
    throw new Invalid('has no index.html (point it at the build output, e.g. dist/)');
  }
  return dir;
}
