import { readFileSync } from 'node:fs';
import { parser } from '@prometheus-io/lezer-promql';
import { startRig, type Rig } from '../../helpers/app-rig.js';
import { scrape } from './prom-text.js';

const DASHBOARD = new URL('../../../deploy/grafana/tigergraph-bff.json', import.meta.url);

interface Panel {
  type: string;
  title: string;
  targets?: Array<{ expr: string }>;
  panels?: Panel[];
}

/** Every PromQL expression of the dashboard: panel targets and query variables, with where it came from. */
function queriesOf(dashboard: { panels: Panel[]; templating: { list: Array<Record<string, unknown>> } }) {
  const found: Array<{ where: string; expr: string }> = [];
  const visit = (panels: Panel[]) => {
    for (const p of panels) {
      for (const t of p.targets ?? []) found.push({ where: p.title, expr: t.expr });
      visit(p.panels ?? []);
    }
  };
  visit(dashboard.panels);
  for (const v of dashboard.templating.list) {
    if (v.type !== 'query') continue;
    // label_values(metric, label) is Grafana's, not PromQL: its metric is checked as a selector.
    const m = /^label_values\((\w+),\s*(\w+)\)$/.exec(String(v.definition));
    if (!m) throw new Error(`query variable ${String(v.name)} is not label_values(metric, label)`);
    found.push({ where: `variable ${String(v.name)}`, expr: `${m[1]!}{${m[2]!}!=""}` });
  }
  return found;
}

/** Grafana's variables as Prometheus would see them once substituted. */
const substitute = (expr: string) => expr.replaceAll('$__rate_interval', '5m').replaceAll('$instance', '.*');

interface Parsed {
  errors: string[];
  metrics: string[];
  /** Labels named in `by (...)` and in matchers, per selector's metric ('' for groupings). */
  labels: string[];
}

/** Parses with Prometheus's own grammar (lezer-promql): syntax errors, the metrics selected, the labels used. */
function parse(expr: string): Parsed {
  const out: Parsed = { errors: [], metrics: [], labels: [] };
  const cursor = parser.parse(expr).cursor();
  do {
    if (cursor.type.isError) out.errors.push(`at ${cursor.from}: ${expr.slice(cursor.from, cursor.from + 20)}`);
    if (cursor.name === 'Identifier' && cursor.node.parent?.name === 'VectorSelector')
      out.metrics.push(expr.slice(cursor.from, cursor.to));
    if (cursor.name === 'LabelName') out.labels.push(expr.slice(cursor.from, cursor.to));
  } while (cursor.next());
  return out;
}

/** Series names a metric of each type exposes. */
const seriesOf = (name: string, type: string): string[] =>
  type === 'histogram'
    ? [`${name}_bucket`, `${name}_sum`, `${name}_count`]
    : type === 'summary'
      ? [name, `${name}_sum`, `${name}_count`]
      : [name];

describe('the Grafana dashboard (deploy/grafana/tigergraph-bff.json)', () => {
  let rig: Rig;
  beforeAll(async () => {
    // Quotas on (never refusing): their metrics exist only then, and the dashboard shows them.
    rig = await startRig({ label: 'dashboard', env: { QUOTA_RATE: '1000000' } });
  });
  afterAll(() => rig.close());

  test('when every query is parsed as PromQL, then each is valid and names only metrics and labels the service exports', async () => {
    // Some traffic first, so the scrape is that of a service at work.
    const agent = await rig.login();
    expect((await agent.get('/api/echo')).status).toBe(200);
    const exported = await scrape(rig.service.metricsApp);
    const series = new Map<string, string>();
    for (const [name, type] of Object.entries(exported.types))
      for (const s of seriesOf(name, type)) series.set(s, name);
    expect(series.has('tgbff_http_request_duration_seconds_count')).toBe(true);

    const dashboard = JSON.parse(readFileSync(DASHBOARD, 'utf8')) as Parameters<typeof queriesOf>[0];
    const queries = queriesOf(dashboard);
    expect(queries.length).toBeGreaterThanOrEqual(20);
    const problems: string[] = [];
    const used = new Set<string>();
    for (const { where, expr } of queries) {
      const parsed = parse(substitute(expr));
      for (const e of parsed.errors) problems.push(`${where}: syntax error ${e}`);
      if (parsed.metrics.length === 0) problems.push(`${where}: selects no metric`);
      const labelsOfMetrics = new Set(['instance', 'job']);
      for (const m of parsed.metrics) {
        const base = series.get(m);
        if (base === undefined) {
          problems.push(`${where}: ${m} is not exported`);
          continue;
        }
        used.add(base);
        if (m.endsWith('_bucket')) labelsOfMetrics.add('le');
        const metric = rig.service.metrics.registry.getSingleMetric(base) as unknown as { labelNames?: string[] };
        for (const l of metric.labelNames ?? []) labelsOfMetrics.add(l);
      }
      for (const l of parsed.labels)
        if (!labelsOfMetrics.has(l)) problems.push(`${where}: label ${l} is on none of ${parsed.metrics.join(', ')}`);
    }
    expect(problems).toEqual([]);
    // The list: request rate and latency, upstream latency, tokens, sessions, limiters, Redis errors.
    for (const name of [
      'tgbff_http_request_duration_seconds',
      'tgbff_relay_duration_seconds',
      'tgbff_token_calls_total',
      'tgbff_token_deletes_total',
      'tgbff_logins_total',
      'tgbff_sessions_evicted_total',
      'tgbff_guesses_limited_total',
      'tgbff_login_budget_limited_total',
      'tgbff_relay_limited_total',
      'tgbff_redis_errors_total',
    ])
      expect({ name, shown: used.has(name) }).toEqual({ name, shown: true });
  });

  test('when a query names a metric that does not exist or is not PromQL, then the check says so', () => {
    expect(parse('rate(tgbff_http_requests_total[5m])').metrics).toEqual(['tgbff_http_requests_total']);
    expect(parse('sum by (route (rate(x[5m]))').errors).not.toEqual([]);
    expect(parse('sum by (route) (rate(x{status_class="5xx"}[5m]))').labels).toEqual(['route', 'status_class']);
  });
});
