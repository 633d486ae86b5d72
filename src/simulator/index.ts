export { startSimulator, DEMO_GRAPH } from './simulator.js';
export type { SeenRequest, SimulatorFaults, SimulatorHandle, SimulatorOptions } from './types.js';
