/**
 * Settings that must agree between the Dockerfile, docker-compose.yml, deploy/nginx.conf and the rendered
 * Kubernetes manifests, gathered into one plain object so that each check can be shown to fail by
 * changing one value of it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { REPO, type K8sObject } from './k8s-render.js';

export interface Facts {
  dockerfile: { env: Record<string, string>; expose: number[]; cmd: string[] };
  compose: { expose: number[]; env: Record<string, string>; stopGraceSeconds: number };
  nginxUpstreamPorts: number[];
  startScript: string;
  k8s: {
    config: Record<string, string>;
    envNames: string[];
    command: string[];
    ports: Record<string, number>;
    serviceTargetPort: number | string;
    servicePorts: number[];
    annotations: Record<string, string>;
    livenessPath: string;
    readinessPath: string;
    startupPath?: string;
    probePorts: (number | string)[];
    preStopSeconds: number;
    grace: number;
    memoryLimitMi: number;
    netpolIngressPorts: number[];
  };
}

const read = (file: string) => readFileSync(join(REPO, file), 'utf8');

export function dockerfileFacts(text: string): Facts['dockerfile'] {
  const joined = text.replace(/\\\n/g, ' ');
  const runtime = joined.slice(joined.lastIndexOf('\nFROM '));
  const env: Record<string, string> = {};
  for (const line of runtime.split('\n').filter((l) => l.startsWith('ENV '))) {
    for (const m of line.slice(4).matchAll(/([A-Z_][A-Z0-9_]*)=(\S+)/g)) env[m[1]] = m[2];
  }
  const expose = runtime
    .split('\n')
    .filter((l) => l.startsWith('EXPOSE '))
    .flatMap((l) => l.slice(7).trim().split(/\s+/).map(Number));
  const cmdLine =
    runtime
      .split('\n')
      .filter((l) => l.startsWith('CMD '))
      .pop() ?? '';
  return { env, expose, cmd: JSON.parse(cmdLine.slice(4)) as string[] };
}

function seconds(d: string): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m)$/.exec(d);
  if (!m) throw new Error(`unknown duration ${d}`);
  return Number(m[1]) * { ms: 0.001, s: 1, m: 60 }[m[2] as 'ms' | 's' | 'm'];
}

function mebibytes(q: string): number {
  const m = /^(\d+)(Mi|Gi)$/.exec(q);
  if (!m) throw new Error(`unexpected memory quantity ${q}`);
  return Number(m[1]) * (m[2] === 'Gi' ? 1024 : 1);
}

export function gatherFacts(objects: K8sObject[]): Facts {
  const compose = parse(read('docker-compose.yml')) as any;
  const bff = compose.services.bff;
  const one = (kind: string) => {
    const found = objects.filter((o) => o.kind === kind && o.metadata.name.startsWith('tigergraph-bff'));
    if (!found.length) throw new Error(`no ${kind}`);
    return found[0] as any;
  };
  const deployment = one('Deployment');
  const pod = deployment.spec.template;
  const c = pod.spec.containers[0];
  const service = one('Service');
  const preStop: string[] = c.lifecycle.preStop.exec.command;
  return {
    dockerfile: dockerfileFacts(read('Dockerfile')),
    compose: {
      expose: (bff.expose as string[]).map(Number),
      env: bff.environment as Record<string, string>,
      stopGraceSeconds: seconds(bff.stop_grace_period),
    },
    nginxUpstreamPorts: [...read('deploy/nginx.conf').matchAll(/^\s*(?:server|set\s+\$\w+)\s+bff:(\d+)/gm)].map((m) =>
      Number(m[1]),
    ),
    startScript: (JSON.parse(read('package.json')) as { scripts: { start: string } }).scripts.start,
    k8s: {
      config: one('ConfigMap').data,
      envNames: (c.env as { name: string }[]).map((e) => e.name),
      command: c.command,
      ports: Object.fromEntries(
        (c.ports as { name: string; containerPort: number }[]).map((p) => [p.name, p.containerPort]),
      ),
      serviceTargetPort: service.spec.ports[0].targetPort,
      servicePorts: (service.spec.ports as { port: number; targetPort: number | string }[]).flatMap((p) => [
        p.port,
        p.targetPort as number,
      ]),
      annotations: pod.metadata.annotations,
      livenessPath: c.livenessProbe.httpGet.path,
      readinessPath: c.readinessProbe.httpGet.path,
      startupPath: c.startupProbe?.httpGet.path,
      probePorts: [c.livenessProbe, c.readinessProbe, c.startupProbe].filter(Boolean).map((p) => p.httpGet.port),
      preStopSeconds: preStop[0] === 'sleep' ? Number(preStop[1]) : NaN,
      grace: pod.spec.terminationGracePeriodSeconds,
      memoryLimitMi: mebibytes(c.resources.limits.memory),
      netpolIngressPorts: objects
        .filter((o) => o.kind === 'NetworkPolicy')
        .flatMap((o: any) =>
          (o.spec.ingress ?? []).flatMap((r: any) => (r.ports ?? []).map((p: any) => p.port as number)),
        ),
    },
  };
}

/** Every disagreement, one sentence each; [] when all agree. */
export async function crossFileProblems(
  f: Facts,
  configKeys: readonly string[],
  routeAnswers: (path: string) => Promise<number>,
): Promise<string[]> {
  const out: string[] = [];
  const k = f.k8s;
  const port = (name: number | string) => (typeof name === 'number' ? name : k.ports[name]);
  const http = Number(k.config.PORT);
  const agree = (what: string, values: Record<string, unknown>) => {
    const distinct = new Set(Object.values(values).map(String));
    if (distinct.size !== 1) out.push(`${what} disagree: ${JSON.stringify(values)}`);
  };
  agree('service ports', {
    'k8s ConfigMap PORT': http,
    'k8s containerPort http': k.ports.http,
    'k8s Service targetPort': port(k.serviceTargetPort),
    'Dockerfile ENV PORT': f.dockerfile.env.PORT,
    'Dockerfile EXPOSE': f.dockerfile.expose.join(','),
    'compose expose': f.compose.expose.join(','),
    'compose PORT': f.compose.env.PORT ?? f.dockerfile.env.PORT,
    'nginx upstream': f.nginxUpstreamPorts.join(','),
  });
  const metrics = Number(k.config.METRICS_PORT);
  agree('metrics ports', {
    'k8s ConfigMap METRICS_PORT': metrics,
    'k8s containerPort metrics': k.ports.metrics,
    'k8s prometheus.io/port': k.annotations['prometheus.io/port'],
    'Dockerfile ENV METRICS_PORT': f.dockerfile.env.METRICS_PORT,
    'compose METRICS_PORT': f.compose.env.METRICS_PORT ?? f.dockerfile.env.METRICS_PORT,
  });
  if (!k.netpolIngressPorts.includes(http)) out.push(`NetworkPolicy does not admit the service port ${http}`);
  if (!k.netpolIngressPorts.includes(metrics)) out.push(`NetworkPolicy does not admit the metrics port ${metrics}`);
  if (k.servicePorts.includes(metrics) || port(k.serviceTargetPort) === metrics)
    out.push('the metrics port is in the public Service');
  if (k.annotations['prometheus.io/scrape'] !== 'true' || k.annotations['prometheus.io/path'] !== '/metrics')
    out.push('Prometheus scrape annotations missing');
  for (const [probe, path] of Object.entries({
    liveness: k.livenessPath,
    readiness: k.readinessPath,
    startup: k.startupPath,
  })) {
    if (path === undefined) continue;
    const status = await routeAnswers(path);
    if (status !== 200) out.push(`${probe} probe path ${path} answers ${status}, not 200`);
  }
  if (k.livenessPath !== '/healthz')
    out.push(`liveness probe is ${k.livenessPath}: /readyz-style checks would restart pods for a Redis outage`);
  if (k.readinessPath !== '/readyz')
    out.push(`readiness probe is ${k.readinessPath}, not /readyz (which turns 503 on drain)`);
  for (const p of k.probePorts)
    if (port(p) !== http) out.push(`a probe targets port ${p}, not the service port ${http}`);
  const shutdownS = Number(k.config.SHUTDOWN_TIMEOUT_MS ?? 10_000) / 1000;
  if (!(k.preStopSeconds >= 1)) out.push('no preStop sleep before SIGTERM');
  if (!(k.grace > k.preStopSeconds + shutdownS))
    out.push(
      `terminationGracePeriodSeconds ${k.grace} <= preStop ${k.preStopSeconds} + SHUTDOWN_TIMEOUT_MS ${shutdownS}s`,
    );
  const composeShutdownS = Number(f.compose.env.SHUTDOWN_TIMEOUT_MS ?? 10_000) / 1000;
  if (!(f.compose.stopGraceSeconds > composeShutdownS))
    out.push(`compose stop_grace_period ${f.compose.stopGraceSeconds}s <= SHUTDOWN_TIMEOUT_MS ${composeShutdownS}s`);
  const allowed = new Set([...configKeys, 'NODE_ENV', 'NODE_OPTIONS']);
  for (const [where, names] of Object.entries({
    'k8s ConfigMap': Object.keys(k.config),
    'k8s env': k.envNames,
    compose: Object.keys(f.compose.env),
  })) {
    for (const name of names) if (!allowed.has(name)) out.push(`${where} sets ${name}, which is no config key`);
  }
  const flags = (argv: string[]) => argv.filter((a) => a.startsWith('--')).join(' ');
  if (flags(k.command) !== flags(f.dockerfile.cmd) || k.command.at(-1) !== f.dockerfile.cmd.at(-1)) {
    out.push(
      `k8s command ${JSON.stringify(k.command)} differs from the image's CMD ${JSON.stringify(f.dockerfile.cmd)}`,
    );
  }
  if (!f.startScript.includes(flags(f.dockerfile.cmd)))
    out.push(`npm start (${f.startScript}) lacks the image's node flags`);
  const heap = /--max-old-space-size=(\d+)/.exec(k.config.NODE_OPTIONS ?? '');
  if (!heap || !(Number(heap[1]) < k.memoryLimitMi * 0.8))
    out.push(`heap cap ${heap?.[1]} MB not below 80% of the ${k.memoryLimitMi}Mi memory limit`);
  return out;
}
