import type { OptionValues } from './args.js';
import { loadConfigFile, type LoadedConfig } from './config-file.js';
import type { Output } from './output.js';
import type { Prompter, TerminalInput } from './prompt.js';
import { resolveSettings, type ConnectionSettings } from './settings.js';

/** Everything a command may touch, passed in by main.ts so commands read no globals. */
export interface CommandContext {
  values: OptionValues;
  positionals: string[];
  env: Readonly<Record<string, string | undefined>>;
  homeDir: string;
  stdin: TerminalInput;
  out: Output;
  /** undefined when standard input is not a terminal. */
  prompter: Prompter | undefined;
  /** Raw text for delegates that print their own output (the simulator). */
  io: { out(text: string): void; err(text: string): void };
  /** Resolves with the first SIGINT/SIGTERM, so long-running commands can shut down cleanly. */
  waitForSignal(): Promise<NodeJS.Signals>;
}

/** Resolves to the process exit code. */
export type CommandRunner = (ctx: CommandContext) => Promise<number>;

export async function loadSettings(
  ctx: CommandContext,
): Promise<{ settings: ConnectionSettings; config: LoadedConfig | undefined }> {
  const config = await loadConfigFile(ctx.env, ctx.homeDir);
  return { settings: resolveSettings(ctx.values, ctx.env, config?.config), config };
}
