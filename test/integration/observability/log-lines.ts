import { setTimeout as sleep } from 'node:timers/promises';

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

/** Access lines are written on 'finish'/'close', which can trail the client's view of the response. */
export async function waitForLines(
  read: () => string,
  pick: (line: LogLine) => boolean,
  count = 1,
  timeoutMs = 3000,
): Promise<LogLine[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = logLines(read()).filter(pick);
    if (found.length >= count || Date.now() > deadline) return found;
    await sleep(20);
  }
}

/** One clock for the simulator and the service, so tests can move time without waiting. */
