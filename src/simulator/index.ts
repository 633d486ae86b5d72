export { startSimulator, DEMO_GRAPH } from './simulator.js';
export type { SeenRequest, SimulatorFaults, SimulatorHandle, SimulatorJwtOptions, SimulatorOptions } from './types.js';
