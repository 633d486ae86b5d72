import { cpus, loadavg, release, totalmem } from 'node:os';

export interface Machine {
  cpus: number;
  cpuModel: string;
  memoryGb: number;
  node: string;
  os: string;
  /** 1-minute load average at start and end: a busy machine makes absolute numbers meaningless. */
  loadAverage: { start: number; end: number | null };
}

export function describeMachine(): Machine {
  const list = cpus();
  return {
    cpus: list.length,
    cpuModel: list[0]?.model.trim() ?? 'unknown',
    memoryGb: Math.round((totalmem() / 2 ** 30) * 10) / 10,
    node: process.version,
    os: `${process.platform} ${release()}`,
    loadAverage: { start: round2(loadavg()[0] ?? 0), end: null },
  };
}

export const currentLoad = (): number => round2(loadavg()[0] ?? 0);
const round2 = (n: number): number => Math.round(n * 100) / 100;
