import { until } from '../../helpers/wait.js';

export type LogLine = Record<string, unknown>;

/** The JSON lines of a captured log text; a line that is not JSON fails the test, since logs must be JSON. */
export function logLines(text: string): LogLine[] {
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => {
      try {
        return JSON.parse(line) as LogLine;
      } catch {
        throw new Error(`log line is not JSON: ${line}`);
      }
    });
}

/** The JSON lines of a service process's output (outside production its start-up banner is plain text). */
export function processLogLines(output: string): LogLine[] {
  return logLines(
    output
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .join('\n'),
  );
}

/**
 * The picked lines once there are at least `count` of them: access lines are written on 'finish'/'close',
 * which can trail the client's view of the response.
 */
export function waitForLines(read: () => string, pick: (line: LogLine) => boolean, count = 1): Promise<LogLine[]> {
  return until(`${count} matching log line(s)`, () => {
    const found = logLines(read()).filter(pick);
    return found.length >= count ? found : null;
  });
}

/** One clock for the simulator and the service, so tests can move time without waiting. */
