import { runSimulatorCli } from '../../simulator/cli-run.js';
import type { CommandRunner } from '../context.js';

/** The simulator's own CLI does the parsing and printing; this only owns the process lifetime. */
export const runSim: CommandRunner = async (ctx) => {
  const result = await runSimulatorCli(ctx.positionals, ctx.io);
  if (typeof result === 'number') return result;
  await ctx.waitForSignal();
  await result.close();
  return 0;
};
