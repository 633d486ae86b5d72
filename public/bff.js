// The page's one client of the service: the browser SDK (packages/browser), which the build copies into
// /sdk/ so it loads from this origin like every other script (the CSP allows 'self' only). The CSRF header,
// the cookie, typed errors, retries and the session's end all come from it; nothing here repeats them.
import { createClient } from './sdk/index.js';

export { BffError } from './sdk/index.js';
export const bff = createClient();

/** An answer's body as JSON when it is JSON, else its text (a console shows what came, as it came). */
export function parseBody(text) {
  try {
    return text ? JSON.parse(text) : null;
  } catch {
    return text;
  }
}
