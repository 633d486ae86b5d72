import { parseSimArgs, SIM_USAGE } from './cli-args.js';
import { loadSimConfig } from './config-file.js';
import { DEMO_GRAPH, startSimulator } from './simulator.js';
import type { SimulatorHandle } from './types.js';
import { parseVersion } from './version.js';

export interface CliIo {
  out: (text: string) => void;
  err: (text: string) => void;
}

/**
 * Runs the simulator CLI: 0 after --help, 2 for bad flags or config, 1 when it cannot start;
 * otherwise resolves with the running handle (the caller owns signals and exit).
 */
export async function runSimulatorCli(argv: string[], io: CliIo): Promise<number | SimulatorHandle> {
  const parsed = parseSimArgs(argv);
  if (parsed.kind === 'help') {
    io.out(SIM_USAGE);
    return 0;
  }
  if (parsed.kind === 'error') {
    io.err(`simulator: ${parsed.message}\n\n${SIM_USAGE}`);
    return 2;
  }
  let options = parsed.options;
  try {
    if (parsed.configPath !== undefined) options = { ...options, ...(await loadSimConfig(parsed.configPath)) };
  } catch (err) {
    io.err(`simulator: ${err instanceof Error ? err.message : String(err)}\n`);
    return 2;
  }
  let handle: SimulatorHandle;
  try {
    handle = await startSimulator(options);
  } catch (err) {
    io.err(`simulator: cannot start: ${err instanceof Error ? err.message : String(err)}\n`);
    return 1;
  }
  // 4.1+ secrets are not bound to a graph.
  const graph = parseVersion(handle.version).era === 'jwt' ? undefined : DEMO_GRAPH;
  const demo = handle.createSecret({ ...(graph && { graph }) });
  const auth =
    (options.authEnabled === false ? 'RESTPP auth disabled' : 'RESTPP auth enabled') +
    (options.jwt ? ', external JWTs verified' : '') +
    (options.authFailureStatus === 403 ? ', refusals as 403' : '');
  // Printing a secret is the point here: a throwaway secret of a local test tool, so a developer can log in.
  io.out(
    [
      `TigerGraph simulator ${handle.version} (${auth})`,
      `  RESTPP (data):   ${handle.restppUrl}`,
      `  GSQL (admin):    ${handle.gsqlUrl}`,
      `  Sim admin:       ${simAdminLine(handle, options.host ?? '127.0.0.1')}`,
      `  Admin user:      tigergraph (default password)`,
      `  Demo secret:     ${demo.value}  (alias ${demo.alias}, user tigergraph${graph ? `, graph ${graph}` : ''})`,
      '',
    ].join('\n'),
  );
  return handle;
}

function simAdminLine(handle: SimulatorHandle, host: string): string {
  const url = `http://${new URL(handle.gsqlUrl).hostname}:${handle.restppPort}/__sim/counts`;
  if (handle.adminSurface === 'open') return url;
  if (handle.adminSurface === 'key') return `${url} (send the --admin-key as header X-Sim-Key)`;
  return `off (listening on ${host}, beyond loopback; --admin-key turns it on)`;
}
