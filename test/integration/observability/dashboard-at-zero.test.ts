import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { startRig, type Rig } from '../../helpers/app-rig.js';
import { parsePromText, scrape } from './prom-text.js';

/**
 * A fresh service with default settings, before any request, exports a sample of every metric the Grafana
 * dashboard queries (issue 43): a panel over a metric that appears only once something happened (or only when
 * quotas are on) shows "No data" instead of zero, and an operator reads that as a broken scrape.
 */
const DASHBOARD = readFileSync(new URL('../../../deploy/grafana/tigergraph-bff.json', import.meta.url), 'utf8');
/** The metric names the dashboard's queries use, histograms by their family name. */
const dashboardMetrics = [...new Set(DASHBOARD.match(/tgbff_[a-z_]+/g) ?? [])].map((name) =>
  name.replace(/_(bucket|count|sum)$/, ''),
);

describe('the dashboard on a fresh service', () => {
  let rig: Rig;
  beforeAll(async () => {
    rig = await startRig({ label: 'dashboard-zero' });
  });
  afterAll(() => rig.close());

  it('when nothing happened yet and quotas are off, then every metric the dashboard uses has a sample', async () => {
    expect(dashboardMetrics).toContain('tgbff_quota_refused_total');
    const { text } = await scrape(rig.service.metricsApp);
    const sampled = new Set(parsePromText(text).samples.map((s) => s.name.replace(/_(bucket|count|sum)$/, '')));
    expect(dashboardMetrics.filter((name) => !sampled.has(name))).toEqual([]);
  });
});
