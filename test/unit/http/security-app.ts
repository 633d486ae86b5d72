import express, { type Express } from 'express';
import { errorHandler } from '../../../src/http/pipeline/error-handler.js';
import { securityMiddleware, type SecurityOptions } from '../../../src/http/pipeline/security.js';
import { silentLogger } from '../../../src/observability/logger.js';

export const LISTED = 'https://app.example.com';

/** A tiny app with the security stack and routes that record that they ran. */
export function securityApp(
  options: Partial<SecurityOptions> = {},
  appTrustProxy?: boolean,
): { app: Express; hits: string[] } {
  const hits: string[] = [];
  const app = express();
  if (appTrustProxy !== undefined) app.set('trust proxy', appTrustProxy);
  app.use(...securityMiddleware({ allowedOrigins: [LISTED], csrfHeader: 'x-requested-with', ...options }));
  app.all('/{*rest}', (req, res) => {
    hits.push(`${req.method} ${req.path}`);
    res.json({ ok: true });
  });
  app.use(errorHandler({ logger: silentLogger() }));
  return { app, hits };
}
