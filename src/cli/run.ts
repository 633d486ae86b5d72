import { parseCommandLine } from './args.js';
import { CliError, ExitCode } from './cli-error.js';
import type { CommandContext, CommandRunner } from './context.js';
import { withEnvFile } from './dotenv-option.js';
import { createOutput } from './output.js';
import { packageVersion } from '../observability/version.js';
import { terminalPrompter, type TerminalInput } from './prompt.js';

/**
 * Each command's module loads when that command runs: help, --version and a usage error load none, and a
 * command loads only its own (the HTTP client, the simulator or the whole service). A start loaded all of
 * them, 281 files, for 0.4 s of CPU, in every invocation.
 */
const RUNNERS: Record<string, () => Promise<CommandRunner>> = {
  'secrets list': async () => (await import('./commands/secrets.js')).listSecrets,
  'secrets create': async () => (await import('./commands/secrets.js')).createSecret,
  'secrets drop': async () => (await import('./commands/secrets.js')).dropSecrets,
  'token get': async () => (await import('./commands/token.js')).getToken,
  'token refresh': async () => (await import('./commands/token.js')).refreshToken,
  'token delete': async () => (await import('./commands/token.js')).deleteToken,
  'sessions list': async () => (await import('./commands/sessions.js')).listSessions,
  'sessions end': async () => (await import('./commands/sessions.js')).endSessions,
  codegen: async () => (await import('./commands/codegen.js')).runCodegen,
  sim: async () => (await import('./commands/sim.js')).runSim,
  serve: async () => (await import('./commands/serve.js')).runServe,
};

export interface CliProcess {
  argv: readonly string[];
  env: Readonly<Record<string, string | undefined>>;
  homeDir: string;
  stdin: TerminalInput;
  stdout: { write(text: string): unknown };
  /** Prompts go here too, so stdout stays clean for pipes and --json. */
  stderr: NodeJS.WritableStream;
  waitForSignal(): Promise<NodeJS.Signals>;
}

/** Runs one tgbff invocation and resolves with its exit code; it never throws. */
export async function runCli(proc: CliProcess): Promise<number> {
  // Known before parsing, so even a usage error comes out as JSON for a script that asked for it.
  const json = proc.argv.includes('--json') && proc.argv[0] !== 'sim';
  const verbose = proc.argv.includes('--verbose') && proc.argv[0] !== 'sim';
  const out = createOutput({ json, verbose, stdout: proc.stdout, stderr: proc.stderr });
  try {
    const line = parseCommandLine(proc.argv);
    if (line.kind === 'help') {
      proc.stdout.write(`${line.text}\n`);
      return ExitCode.ok;
    }
    if (line.kind === 'version') {
      proc.stdout.write(json ? `${JSON.stringify({ version: packageVersion() })}\n` : `tgbff ${packageVersion()}\n`);
      return ExitCode.ok;
    }
    const envFile = typeof line.values.dotenv === 'string' ? line.values.dotenv : undefined;
    const { env, read } = withEnvFile(proc.env, envFile);
    if (read !== undefined) out.info(`settings from env file ${read} (variables already set keep their values)`);
    const ctx: CommandContext = {
      values: line.values,
      positionals: line.positionals,
      env,
      homeDir: proc.homeDir,
      stdin: proc.stdin,
      out,
      prompter: terminalPrompter(proc.stdin, proc.stderr),
      io: { out: (t) => proc.stdout.write(t), err: (t) => proc.stderr.write(t) },
      waitForSignal: proc.waitForSignal,
    };
    const runner = await RUNNERS[line.spec.name]!();
    return await runner(ctx);
  } catch (err) {
    const failure =
      err instanceof CliError
        ? err
        : new CliError(
            ExitCode.other,
            'internal',
            `unexpected failure: ${err instanceof Error ? err.message : String(err)}`,
          );
    out.error(failure);
    return failure.exitCode;
  }
}
