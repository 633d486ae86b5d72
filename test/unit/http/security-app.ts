import type { TrustProxySetting } from '../../../src/http/pipeline/own-origin.js';
import { throughPipeline } from '../../helpers/pipeline-rig.js';

export const LISTED = 'https://app.example.com';

export interface SecurityOptions {
  allowedOrigins: readonly string[];
  csrfHeader: string;
  trustProxy: TrustProxySetting;
}

/**
 * The service's pipeline (security headers, CORS, the CSRF guard among its steps) in front of a handler
 * that records that it ran. `trustProxy` is the one trust setting (TRUST_PROXY); `appTrustProxy` is the
 * same, kept for the tests written when the app had a second one.
 */
export function securityApp(options: Partial<SecurityOptions> = {}, appTrustProxy?: boolean) {
  const hits: string[] = [];
  const app = throughPipeline(
    (req, res, ctx) => {
      hits.push(`${req.method} ${ctx.path}`);
      res.setHeader('Content-Type', 'application/json');
      res.end(JSON.stringify({ ok: true }));
    },
    {
      allowedOrigins: [LISTED],
      csrfHeader: 'x-requested-with',
      ...options,
      trustProxy: options.trustProxy ?? appTrustProxy ?? false,
    },
  );
  return { app, hits };
}
