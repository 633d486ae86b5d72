import type { CommandRunner } from '../context.js';

/**
 * The service entry starts itself when loaded and owns its signals and exit, so loading it in this
 * process (rather than spawning) keeps Ctrl-C a single signal to a single process.
 */
export const runServe: CommandRunner = async () => {
  await import('../../main.js');
  return new Promise<number>(() => {
    // Never settles: from here the service decides when the process exits.
  });
};
