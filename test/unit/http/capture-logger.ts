import { createLogger, type Logger } from '../../../src/observability/logger.js';

/** The real service logger writing into memory, so tests read the exact JSON lines it would emit. */
export function captureLogger(): { logger: Logger; raw: string[]; lines: () => Record<string, unknown>[] } {
  const raw: string[] = [];
  const logger = createLogger({ level: 'debug', destination: { write: (line: string) => raw.push(line) } });
  return { logger, raw, lines: () => raw.map((l) => JSON.parse(l) as Record<string, unknown>) };
}
