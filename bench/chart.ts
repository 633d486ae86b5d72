import type { SubjectSummary } from './summary.js';

/**
 * A hand-written SVG: throughput at c=50 as bars with the ratio to (a), and the added p50/p99 latency
 * at c=1 beside it. No charting dependency for two bar groups.
 */
export function renderChart(summaries: SubjectSummary[], title: string): string {
  const rowH = 34;
  const top = 70;
  const labelW = 300;
  const barW = 330;
  const latX = labelW + barW + 90;
  const latW = 260;
  const height = top + summaries.length * rowH + 50;
  const width = latX + latW + 140;
  const maxRps = Math.max(1, ...summaries.map((s) => finite(s.phases.c50.rps)));
  const maxLat = Math.max(
    0.1,
    ...summaries.map((s) => Math.max(finite(s.phases.c1.addedP50Ms), finite(s.phases.c1.addedP99Ms))),
  );
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="13">`,
    `<rect width="100%" height="100%" fill="#fff"/>`,
    text(16, 24, escape(title), 'font-size="15" font-weight="bold"'),
    text(labelW, top - 14, 'req/s at c=50 (x = ratio to direct)', 'fill="#444"'),
    text(latX, top - 14, 'added latency vs direct at c=1 (ms):', 'fill="#444"'),
    `<rect x="${latX + 232}" y="${top - 24}" width="10" height="10" fill="#dd6b20"/>`,
    text(latX + 246, top - 14, 'p50', 'fill="#444"'),
    `<rect x="${latX + 276}" y="${top - 24}" width="10" height="10" fill="#9c4221"/>`,
    text(latX + 290, top - 14, 'p99', 'fill="#444"'),
  ];
  summaries.forEach((s, i) => {
    const y = top + i * rowH;
    const rps = finite(s.phases.c50.rps);
    const w = Math.max(1, (rps / maxRps) * barW);
    const colour = s.id.startsWith('bff') ? '#2b6cb0' : s.id === 'direct' ? '#718096' : '#a0aec0';
    parts.push(text(16, y + 17, escape(s.label)));
    parts.push(`<rect x="${labelW}" y="${y + 4}" width="${w.toFixed(1)}" height="18" fill="${colour}"/>`);
    parts.push(text(labelW + w + 6, y + 17, `${Math.round(rps)}  x${finite(s.phases.c50.ratioToDirect).toFixed(2)}`));
    if (s.id !== 'direct') {
      const p50 = Math.max(0, finite(s.phases.c1.addedP50Ms));
      const p99 = Math.max(0, finite(s.phases.c1.addedP99Ms));
      parts.push(
        `<rect x="${latX}" y="${y + 4}" width="${Math.max(1, (p50 / maxLat) * latW).toFixed(1)}" height="8" fill="#dd6b20"/>`,
      );
      parts.push(
        `<rect x="${latX}" y="${y + 14}" width="${Math.max(1, (p99 / maxLat) * latW).toFixed(1)}" height="8" fill="#9c4221"/>`,
      );
      parts.push(
        text(latX + (Math.max(p50, p99) / maxLat) * latW + 6, y + 17, `${p50.toFixed(2)} / ${p99.toFixed(2)}`),
      );
    }
  });
  parts.push(
    text(
      16,
      height - 16,
      'Medians over interleaved rounds; see latest.json for every run.',
      'fill="#666" font-size="11"',
    ),
  );
  parts.push('</svg>');
  return parts.join('\n') + '\n';
}

const finite = (n: number): number => (Number.isFinite(n) ? n : 0);
const text = (x: number, y: number, body: string, attrs = ''): string =>
  `<text x="${x.toFixed(1)}" y="${y}" ${attrs}>${body}</text>`;
const escape = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
