// The package's public entry: the TigerGraph client library, usable without the service, and the
// simulator, so other projects can test their own TigerGraph code against it.
export * from '@tigergraph-bff/client';
export { startSimulator } from './simulator/index.js';
export type { SimulatorFaults, SimulatorHandle, SimulatorOptions, SeenRequest } from './simulator/index.js';
