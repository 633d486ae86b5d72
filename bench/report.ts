import type { Comparison, SubjectSummary, TargetCheck } from './summary.js';

const fmt = (n: number | null | undefined, digits = 2): string =>
  n === null || n === undefined || !Number.isFinite(n) ? '-' : n.toFixed(digits);
const signed = (n: number, digits = 3): string =>
  Number.isFinite(n) ? `${n >= 0 ? '+' : ''}${n.toFixed(digits)}` : '-';

/** The stdout table: one row per subject, ratios and added latency against (a). */
export function formatTable(
  summaries: SubjectSummary[],
  checks: TargetCheck[],
  comparison: Comparison | null = null,
): string {
  const rate = summaries.find((s) => s.phases.rate.offeredRps !== null)?.phases.rate.offeredRps;
  const header = [
    'subject',
    'req/s c=50',
    'x (a)',
    'p50 c=1',
    '+p50 c=1',
    '+p99 c=1',
    `+p50 @${rate ?? '?'}/s`,
    `+p99 @${rate ?? '?'}/s`,
    'CPU us/req c=50',
    'Redis cmd/req',
    'token calls',
    'peak RSS MB',
  ];
  const rows = summaries.map((s) => [
    s.label,
    fmt(s.phases.c50.rps, 0),
    fmt(s.phases.c50.ratioToDirect, 2),
    `${fmt(s.phases.c1.p50Ms, 3)} ms`,
    signed(s.phases.c1.addedP50Ms),
    signed(s.phases.c1.addedP99Ms),
    signed(s.phases.rate.addedP50Ms),
    signed(s.phases.rate.addedP99Ms),
    fmt(s.phases.c50.cpuUsPerRequest, 0),
    fmt(s.redisCommandsPerRequest, 2),
    String(s.tokenCalls),
    fmt(s.peakRssMb, 1),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] as string).length)));
  const line = (cells: string[]) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i] as number) : c.padStart(widths[i] as number))).join('  ');
  const out = [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)];
  const failed = summaries.filter((s) => s.failed > 0);
  if (failed.length > 0) out.push('', `FAILED requests: ${failed.map((s) => `${s.id} ${s.failed}`).join(', ')}`);
  const by = (id: string) => summaries.find((s) => s.id === id);
  const [nginx, floor, d] = [by('nginx'), by('floor'), by('bff-redis')];
  if (nginx && d) {
    const cpu = (s: SubjectSummary | undefined) => s?.phases.c50.cpuUsPerRequest ?? null;
    const times = (a: number | null, b: number | null) => (a !== null && b !== null && b > 0 ? fmt(a / b, 2) : '-');
    out.push(
      '',
      `C anchor (g) nginx: ${fmt(nginx.phases.c50.rps, 0)} req/s, ${fmt(cpu(nginx), 0)} us CPU/req at c=50; ` +
        `(b) floor ${times(cpu(floor), cpu(nginx))} x its CPU/req, (d) ${times(cpu(d), cpu(nginx))} x; ` +
        `(d) req/s ${times(d.phases.c50.rps, nginx.phases.c50.rps)} x nginx's`,
    );
  }
  if (checks.length > 0) {
    out.push('', 'Targets (on (d)):');
    for (const c of checks)
      out.push(`  ${c.met ? 'met   ' : 'MISSED'}  ${c.name}: ${fmt(c.value, 3)} (target ${c.limit})`);
  }
  if (comparison) {
    out.push(
      '',
      `(d) against the other build (d*): req/s x${fmt(comparison.rpsRatioC50, 3)} at c=50, p50 at c=1 ${signed(comparison.p50DeltaC1Ms)} ms, CPU/req x${fmt(comparison.cpuRatioC50, 3)}`,
    );
  }
  out.push('', 'Latencies in ms; "+" columns are added latency versus (a) in the same round (median over rounds).');
  out.push(
    "CPU us/req: CPU time of the subject's own process per request (for (a), the simulator's); steady on a busy machine.",
  );
  return out.join('\n');
}
