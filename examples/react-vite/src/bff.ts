// One client for the whole app, same origin: in development the Vite dev server proxies /auth and /api to
// the service (vite.config.ts); in production the service serves this build (APP_DIR) or one host fronts
// both. Nothing here knows React: the hooks in session.ts subscribe to it.
import { createClient } from '@tigergraph-bff/browser';

export const bff = createClient();
