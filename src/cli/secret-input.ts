import { usageError } from './cli-error.js';
import type { Prompter, TerminalInput } from './prompt.js';

export interface SecretInput {
  secret: string;
  /** For messages: "TG_SECRET", "standard input" or "the prompt". */
  source: string;
}

async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * The secret for token commands: TG_SECRET, else piped standard input (first line), else a no-echo
 * prompt on a terminal. Never a flag: command lines end up in shell history and `ps`.
 */
export async function readSecret(
  env: Readonly<Record<string, string | undefined>>,
  stdin: TerminalInput,
  prompter: Prompter | undefined,
): Promise<SecretInput> {
  const fromEnv = env.TG_SECRET?.trim();
  if (fromEnv) return { secret: fromEnv, source: 'TG_SECRET' };
  if (prompter) {
    const typed = (await prompter.askHidden('Secret: ')).trim();
    if (typed) return { secret: typed, source: 'the prompt' };
  } else {
    const piped = (await readAll(stdin))
      .split(/\r?\n/)
      .map((l) => l.trim())
      .find((l) => l !== '');
    if (piped) return { secret: piped, source: 'standard input' };
  }
  throw usageError('no secret given: set TG_SECRET or pipe the secret on standard input');
}
