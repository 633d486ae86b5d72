import { createLogger, flatLineLogger, REDACT_PATHS, SSO_REDACT_PATHS } from '../../../src/observability/logger.js';

function capture() {
  const raw: string[] = [];
  const logger = createLogger({ level: 'debug', destination: { write: (line: string) => raw.push(line) } });
  return { logger, raw };
}

/** Every top-level name either list censors (the wildcard paths' last segment, and the plain names). */
const NAMES = [...new Set([...REDACT_PATHS, ...SSO_REDACT_PATHS].map((p) => p.replace(/^\*\./, '')))].filter(
  (name) => !name.includes('.') && !name.includes('['),
);

describe('the flat line logger (the access line)', () => {
  it('when a line of strings, numbers and booleans is written, then it is the same text as the service logger writes', () => {
    const line = {
      requestId: 'r-1',
      method: 'GET',
      route: '/api/*',
      status: 200,
      durationMs: 1.25,
      bytes: 42,
      aborted: undefined,
      login: 'password',
      user: 'alice',
      graph: 'social',
      session: 'AbCdEfGhIjKlMnOp',
      query: undefined,
      traceId: undefined,
    };
    const a = capture();
    const b = capture();
    a.logger.info(line, 'request');
    flatLineLogger(b.logger).info(line, 'request');
    const strip = (s: string) => s.replace(/"time":"[^"]+"/, '');
    expect(a.raw).toHaveLength(1);
    expect(strip(b.raw[0]!)).toBe(strip(a.raw[0]!));
    expect(JSON.parse(b.raw[0]!)).not.toHaveProperty('query');
  });

  it('when a top-level field carries a censored name of either list, then its value is censored', () => {
    expect(NAMES).toEqual(expect.arrayContaining(['secret', 'token', 'cookie', 'authorization', 'refresh_token']));
    const { logger, raw } = capture();
    const log = flatLineLogger(logger);
    for (const name of NAMES) log.info({ route: '/x', [name]: `${name}-must-not-appear` }, 'request');
    expect(raw).toHaveLength(NAMES.length);
    for (const text of raw) {
      expect(text).toContain('[redacted]');
      expect(text).not.toMatch(/must-not-appear/);
    }
  });
});
