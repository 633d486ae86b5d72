import { median, type Phase, type Sample } from './measure.js';
import { totalCount, type CommandCounts } from './redis-stats.js';

export interface PhaseSummary {
  /** Medians over rounds. */
  rps: number;
  p50Ms: number;
  p99Ms: number;
  /** Median over rounds of (this subject - direct) in the same round; 0 for direct itself. */
  addedP50Ms: number;
  addedP99Ms: number;
  /** Median over rounds of (this subject's req/s / direct's) in the same round. */
  ratioToDirect: number;
  offeredRps: number | null;
  /** Median over rounds of the subject's own CPU microseconds per request. */
  cpuUsPerRequest: number | null;
}

export interface SubjectSummary {
  id: string;
  label: string;
  phases: Record<Phase, PhaseSummary>;
  requests: number;
  failed: number;
  /** Over every measured run; null when the subject does not use Redis. */
  redisCommandsPerRequest: number | null;
  redisCommandsByName: Record<string, number> | null;
  /** Token endpoint calls (mint, refresh, delete) during the measured runs. */
  tokenCalls: number;
  tokenCallsPer1000: number;
  peakRssMb: number | null;
}

export interface TargetCheck {
  name: string;
  value: number | null;
  limit: string;
  met: boolean;
}

const PHASE_NAMES: Phase[] = ['c50', 'c1', 'rate'];

export function summarize(
  samples: Sample[],
  subjects: Array<{ id: string; label: string; usesRedis: boolean; peakRssMb: number | null }>,
): SubjectSummary[] {
  return subjects.map(({ id, label, usesRedis, peakRssMb }) => {
    const own = samples.filter((s) => s.subject === id);
    const requests = own.reduce((n, s) => n + s.load.ok, 0);
    const commands = own.reduce<CommandCounts>((acc, s) => {
      for (const [name, n] of Object.entries(s.redis)) acc[name] = (acc[name] ?? 0) + n;
      return acc;
    }, {});
    const tokenCalls = own.reduce((n, s) => n + s.tokenCalls, 0);
    const perRequest = (n: number) => (requests > 0 ? round3(n / requests) : NaN);
    return {
      id,
      label,
      phases: Object.fromEntries(PHASE_NAMES.map((phase) => [phase, phaseSummary(samples, id, phase)])) as Record<
        Phase,
        PhaseSummary
      >,
      requests,
      failed: own.reduce((n, s) => n + s.load.failed, 0),
      redisCommandsPerRequest: usesRedis ? perRequest(totalCount(commands)) : null,
      redisCommandsByName: usesRedis
        ? Object.fromEntries(Object.entries(commands).map(([name, n]) => [name, perRequest(n)]))
        : null,
      tokenCalls,
      tokenCallsPer1000: perRequest(tokenCalls * 1000),
      peakRssMb,
    };
  });
}

function phaseSummary(samples: Sample[], id: string, phase: Phase): PhaseSummary {
  const own = samples.filter((s) => s.subject === id && s.phase === phase);
  const paired = own.map((s) => ({
    s,
    d: samples.find((x) => x.subject === 'direct' && x.phase === phase && x.round === s.round),
  }));
  const diffs = (pick: (x: Sample) => number) => paired.filter((p) => p.d).map((p) => pick(p.s) - pick(p.d as Sample));
  return {
    rps: round3(median(own.map((s) => s.load.rps))),
    p50Ms: round3(median(own.map((s) => s.load.p50Ms))),
    p99Ms: round3(median(own.map((s) => s.load.p99Ms))),
    addedP50Ms: round3(median(diffs((x) => x.load.p50Ms))),
    addedP99Ms: round3(median(diffs((x) => x.load.p99Ms))),
    ratioToDirect: round3(median(paired.filter((p) => p.d).map((p) => p.s.load.rps / (p.d as Sample).load.rps))),
    offeredRps: own[0]?.offeredRps ?? null,
    cpuUsPerRequest: nullable(median(own.map((s) => s.cpuUsPerRequest ?? NaN))),
  };
}

/** (d) against another build of itself run in the same rounds (BENCH_COMPARE_DIST), or null. */
export interface Comparison {
  /** Median over rounds of (d)'s req/s at c=50 over the other build's. */
  rpsRatioC50: number;
  /** Median over rounds of (d)'s p50 at c=1 minus the other build's, ms. */
  p50DeltaC1Ms: number;
  /** (d)'s CPU per request at c=50 over the other build's. */
  cpuRatioC50: number | null;
}

export function compareBuilds(samples: Sample[], summaries: SubjectSummary[]): Comparison | null {
  const d = summaries.find((s) => s.id === 'bff-redis');
  const other = summaries.find((s) => s.id === 'bff-compare');
  if (!d || !other) return null;
  const paired = (phase: Phase, pick: (a: Sample, b: Sample) => number) =>
    median(
      samples
        .filter((s) => s.subject === 'bff-redis' && s.phase === phase)
        .map((s) => {
          const o = samples.find((x) => x.subject === 'bff-compare' && x.phase === phase && x.round === s.round);
          return o ? pick(s, o) : NaN;
        }),
    );
  const cpuD = d.phases.c50.cpuUsPerRequest;
  const cpuO = other.phases.c50.cpuUsPerRequest;
  return {
    rpsRatioC50: round3(paired('c50', (a, b) => a.load.rps / b.load.rps)),
    p50DeltaC1Ms: round3(paired('c1', (a, b) => a.load.p50Ms - b.load.p50Ms)),
    cpuRatioC50: cpuD !== null && cpuO !== null && cpuO > 0 ? round3(cpuD / cpuO) : null,
  };
}

/** The targets, checked on (d), the BFF with Redis. */
export function checkTargets(samples: Sample[], summaries: SubjectSummary[]): TargetCheck[] {
  const d = summaries.find((s) => s.id === 'bff-redis');
  if (!d) return [];
  const perRoundRatio = (a: string, b: string) =>
    median(
      samples
        .filter((s) => s.subject === a && s.phase === 'c50')
        .map(
          (s) =>
            s.load.rps /
            (samples.find((x) => x.subject === b && x.phase === 'c50' && x.round === s.round)?.load.rps ?? NaN),
        ),
    );
  const floor = summaries.find((s) => s.id === 'floor');
  const ratio = (a: number | null | undefined, b: number | null | undefined): number | null =>
    a === null || a === undefined || b === null || b === undefined || b <= 0 ? null : round3(a / b);
  const checks: Array<[string, number | null, string, (v: number) => boolean]> = [
    ['(d)/(a) req/s at c=50', d.phases.c50.ratioToDirect, '>= 0.45', (v) => v >= 0.45],
    // Issue 46: ahead of the true floor (b), measured in the same run.
    ['(d)/(c) req/s at c=50', round3(perRoundRatio('bff-redis', 'plain-peer')), '>= 3.0', (v) => v >= 3.0],
    [
      '(d)/(b) CPU per request at c=50',
      ratio(d.phases.c50.cpuUsPerRequest, floor?.phases.c50.cpuUsPerRequest),
      '<= 1.15',
      (v) => v <= 1.15,
    ],
    [
      '(d)/(b) added p99 at half (d) max rate',
      ratio(d.phases.rate.addedP99Ms, floor?.phases.rate.addedP99Ms),
      '<= 1.5',
      (v) => v <= 1.5,
    ],
    ['added p50 at c=1 (ms)', d.phases.c1.addedP50Ms, '<= 0.5', (v) => v <= 0.5],
    ['added p99 at c=1 (ms)', d.phases.c1.addedP99Ms, '<= 2', (v) => v <= 2],
    ['Redis commands per relayed request', d.redisCommandsPerRequest, '<= 1.2', (v) => v <= 1.2],
    ['peak RSS of the service (MB)', d.peakRssMb, '<= 120', (v) => v <= 120],
  ];
  return checks.map(([name, value, limit, ok]) => {
    const known = value !== null && Number.isFinite(value);
    return { name, value: known ? value : null, limit, met: known && ok(value as number) };
  });
}

const nullable = (n: number): number | null => (Number.isFinite(n) ? Math.round(n) : null);

export const round3 = (n: number): number => (Number.isFinite(n) ? Math.round(n * 1000) / 1000 : NaN);
