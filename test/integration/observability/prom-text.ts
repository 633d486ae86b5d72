import type { RequestListener } from 'node:http';
import supertest from 'supertest';

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** Prometheus text exposition (0.0.4) to samples; comment lines are checked for the metric's type. */
export function parsePromText(text: string): { samples: Sample[]; types: Record<string, string> } {
  const samples: Sample[] = [];
  const types: Record<string, string> = {};
  for (const line of text.split('\n')) {
    if (line === '') continue;
    const type = /^# TYPE (\S+) (\S+)$/.exec(line);
    if (type) types[type[1]!] = type[2]!;
    if (line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m) throw new Error(`not a Prometheus sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const pair of (m[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g))
      labels[pair[1]!] = pair[2]!;
    samples.push({ name: m[1]!, labels, value: Number(m[3]) });
  }
  return { samples, types };
}

export interface Scrape {
  text: string;
  types: Record<string, string>;
  /** Value of the sample with exactly these labels (0 when absent: prom-client omits untouched label sets). */
  value(name: string, labels?: Record<string, string>): number;
  /** Sum over every sample of `name` whose labels include `labels`. */
  sum(name: string, labels?: Record<string, string>): number;
  has(name: string): boolean;
}

/**
 * Scrapes a service's metrics listener, as Prometheus does on METRICS_PORT: in process (Service.metricsApp)
 * or a service process's address (ServiceProcess.metricsUrl).
 */
export async function scrape(metrics: RequestListener | string): Promise<Scrape> {
  const res = await supertest(metrics).get('/metrics');
  if (res.status !== 200) throw new Error(`/metrics answered ${res.status}`);
  if (!String(res.headers['content-type']).startsWith('text/plain'))
    throw new Error(`unexpected content type ${res.headers['content-type']}`);
  return scraped(res.text);
}

function scraped(text: string): Scrape {
  const { samples, types } = parsePromText(text);
  const matches = (s: Sample, name: string, labels: Record<string, string>, exact: boolean) =>
    s.name === name &&
    Object.entries(labels).every(([k, v]) => s.labels[k] === v) &&
    (!exact || Object.keys(s.labels).length === Object.keys(labels).length);
  return {
    text,
    types,
    value: (name, labels = {}) => samples.find((s) => matches(s, name, labels, true))?.value ?? 0,
    sum: (name, labels = {}) => samples.filter((s) => matches(s, name, labels, false)).reduce((t, s) => t + s.value, 0),
    has: (name) => samples.some((s) => s.name === name),
  };
}
