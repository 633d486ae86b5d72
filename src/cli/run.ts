import { parseCommandLine } from './args.js';
import { CliError, ExitCode } from './cli-error.js';
import { runCodegen } from './commands/codegen.js';
import { createSecret, dropSecrets, listSecrets } from './commands/secrets.js';
import { runServe } from './commands/serve.js';
import { runSim } from './commands/sim.js';
import { deleteToken, getToken, refreshToken } from './commands/token.js';
import type { CommandContext, CommandRunner } from './context.js';
import { withEnvFile } from './dotenv-option.js';
import { createOutput } from './output.js';
import { packageVersion } from '../observability/version.js';
import { terminalPrompter, type TerminalInput } from './prompt.js';

const RUNNERS: Record<string, CommandRunner> = {
  'secrets list': listSecrets,
  'secrets create': createSecret,
  'secrets drop': dropSecrets,
  'token get': getToken,
  'token refresh': refreshToken,
  'token delete': deleteToken,
  codegen: runCodegen,
  sim: runSim,
  serve: runServe,
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
    return await RUNNERS[line.spec.name]!(ctx);
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
