/**
 * Settings that must agree across the Dockerfile, docker-compose.yml, deploy/nginx.conf and the rendered
 * Kubernetes manifests (base and example overlay): ports, metrics port, probe paths (asked of the real
 * ops routes), grace periods vs SHUTDOWN_TIMEOUT_MS, env names (the service's CONFIG_KEYS), node flags.
 * The second block breaks one value at a time and shows each check fails.
 */
import { beforeAll, describe, expect, it } from '@jest/globals';
import express from 'express';
import request from 'supertest';
import { CONFIG_KEYS } from '../../../src/config.js';
import { opsRoutes } from '../../../src/http/routes/ops-routes.js';
import { crossFileProblems, gatherFacts, type Facts } from './cross-file-facts.js';
import { KUSTOMIZE_DIRS, kubectlMissing, kustomize } from './k8s-render.js';

// The ops routes as app.ts mounts them (at the root), with every readiness check passing.
const app = express().use(opsRoutes({ isDraining: () => false, checks: [{ name: 'redis', check: async () => {} }] }));
const routeAnswers = async (path: string) => (await request(app).get(path)).status;

const missing = kubectlMissing();
if (missing && process.env.CI === 'true')
  throw new Error(`CI=true but ${missing}: install kubectl (v1.32, with kustomize)`);
if (missing) console.warn(`SKIPPED cross-file deploy consistency tests: ${missing}`);
const withKubectl = missing ? describe.skip : describe;

withKubectl.each(KUSTOMIZE_DIRS)('settings agree across files (%s)', (dir) => {
  it('has no disagreement', async () => {
    expect(await crossFileProblems(gatherFacts(kustomize(dir)), CONFIG_KEYS, routeAnswers)).toEqual([]);
  });
});

withKubectl('each cross-file check fails when one value is broken', () => {
  // Rendered and read once; each case breaks its own deep copy.
  let rendered: Facts;
  beforeAll(() => {
    rendered = gatherFacts(kustomize(KUSTOMIZE_DIRS[0]));
  });
  const pristine = (): Facts => structuredClone(rendered);
  const cases: [string, (f: Facts) => void, RegExp][] = [
    ['container port', (f) => void (f.k8s.ports.http = 8081), /service ports disagree/],
    ['ConfigMap PORT', (f) => void (f.k8s.config.PORT = '3000'), /service ports disagree/],
    ['Service targetPort', (f) => void (f.k8s.serviceTargetPort = 9090), /service ports disagree/],
    ['Dockerfile EXPOSE', (f) => void (f.dockerfile.expose = [3000]), /service ports disagree/],
    ['compose expose', (f) => void (f.compose.expose = [3000]), /service ports disagree/],
    ['nginx upstream', (f) => void (f.nginxUpstreamPorts = [3000]), /service ports disagree/],
    ['metrics annotation', (f) => void (f.k8s.annotations['prometheus.io/port'] = '9090'), /metrics ports disagree/],
    ['Dockerfile METRICS_PORT', (f) => void (f.dockerfile.env.METRICS_PORT = '9100'), /metrics ports disagree/],
    ['NetworkPolicy metrics port', (f) => void (f.k8s.netpolIngressPorts = [8080]), /does not admit the metrics port/],
    [
      'metrics in the public Service',
      (f) => void f.k8s.servicePorts.push(9464),
      /metrics port is in the public Service/,
    ],
    [
      'probe path not a route',
      (f) => void (f.k8s.readinessPath = '/ready'),
      /readiness probe path \/ready answers 404/,
    ],
    ['liveness on /readyz', (f) => void (f.k8s.livenessPath = '/readyz'), /liveness probe is \/readyz/],
    ['probe on the metrics port', (f) => void (f.k8s.probePorts = ['metrics']), /a probe targets port metrics/],
    ['grace too short', (f) => void (f.k8s.grace = 15), /terminationGracePeriodSeconds 15 <= preStop 5/],
    [
      'SHUTDOWN_TIMEOUT_MS raised',
      (f) => void (f.k8s.config.SHUTDOWN_TIMEOUT_MS = '30000'),
      /terminationGracePeriodSeconds/,
    ],
    ['compose grace too short', (f) => void (f.compose.stopGraceSeconds = 10), /compose stop_grace_period 10s/],
    [
      'unknown ConfigMap key',
      (f) => void (f.k8s.config.SHUTDOWN_TIMEOUT = '1'),
      /ConfigMap sets SHUTDOWN_TIMEOUT, which is no config key/,
    ],
    ['unknown container env', (f) => void f.k8s.envNames.push('SESSION_SECRETS'), /k8s env sets SESSION_SECRETS/],
    ['unknown compose env', (f) => void (f.compose.env.REDIS_HOST = 'redis'), /compose sets REDIS_HOST/],
    ['node flags', (f) => void (f.k8s.command = ['node', 'dist/main.js']), /differs from the image's CMD/],
    ['npm start flags', (f) => void (f.startScript = 'node dist/main.js'), /npm start/],
    ['heap cap above limit', (f) => void (f.k8s.memoryLimitMi = 128), /heap cap 160 MB not below/],
  ];
  it.each(cases)('%s', async (_name, breakIt, expected) => {
    const facts = pristine();
    expect(await crossFileProblems(facts, CONFIG_KEYS, routeAnswers)).toEqual([]);
    breakIt(facts);
    expect((await crossFileProblems(facts, CONFIG_KEYS, routeAnswers)).join('\n')).toMatch(expected);
  });
});
