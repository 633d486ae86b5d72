/**
 * The Kubernetes manifests render (real `kubectl kustomize`, offline) and every object is valid against
 * the Kubernetes schemas of npm `kubernetes-models`, with no unknown or misspelt field.
 * Under CI=true a missing kubectl fails; elsewhere these tests are skipped with the reason printed.
 */
import { beforeAll, describe, expect, it } from '@jest/globals';
import { KUSTOMIZE_DIRS, kubectlMissing, kustomize, parseDocuments, type K8sObject } from './k8s-render.js';
import { shapeProblems, unknownFieldProblems } from './k8s-schema.js';

const missing = kubectlMissing();
if (missing && process.env.CI === 'true')
  throw new Error(`CI=true but ${missing}: install kubectl (v1.32, with kustomize)`);
if (missing) console.warn(`SKIPPED deploy/kubernetes rendering tests: ${missing}`);
const withKubectl = missing ? describe.skip : describe;

withKubectl.each(KUSTOMIZE_DIRS)('kubectl kustomize %s', (dir) => {
  let objects: K8sObject[] = [];
  beforeAll(() => {
    objects = kustomize(dir); // here, not in the describe body: describe.skip still runs that
  });

  it('renders the expected kinds', () => {
    const kinds = objects.map((o) => o.kind);
    for (const kind of [
      'Deployment',
      'Service',
      'ConfigMap',
      'ServiceAccount',
      'PodDisruptionBudget',
      'HorizontalPodAutoscaler',
      'NetworkPolicy',
    ]) {
      expect(kinds).toContain(kind);
    }
    expect(objects.some((o) => o.kind === 'Secret')).toBe(false); // secret values never live in the manifests
  });

  it('runs the pods hardened, with secrets only referenced by Secret name', () => {
    const d = objects.find((o) => o.kind === 'Deployment') as any;
    const pod = d.spec.template.spec;
    const c = pod.containers[0];
    expect(pod.automountServiceAccountToken).toBe(false);
    expect(objects.find((o) => o.kind === 'ServiceAccount')).toMatchObject({ automountServiceAccountToken: false });
    expect(pod.securityContext).toMatchObject({
      runAsNonRoot: true,
      runAsUser: 1000,
      seccompProfile: { type: 'RuntimeDefault' },
    });
    expect(c.securityContext).toMatchObject({
      runAsNonRoot: true,
      readOnlyRootFilesystem: true,
      allowPrivilegeEscalation: false,
      capabilities: { drop: ['ALL'] },
    });
    expect(c.volumeMounts).toContainEqual({ name: 'tmp', mountPath: '/tmp' });
    expect(d.spec.strategy.rollingUpdate).toEqual({ maxUnavailable: 0, maxSurge: 1 });
    expect(d.spec.replicas).toBe(3);
    for (const e of c.env) {
      expect(e.value).toBeUndefined();
      expect(e.valueFrom.secretKeyRef.name).toBe('tigergraph-bff-secrets');
    }
  });

  it('validates every object against the Kubernetes schema', async () => {
    expect(await shapeProblems(objects)).toEqual([]);
  });

  it('has no unknown or misspelt field', () => {
    expect(unknownFieldProblems(objects)).toEqual([]);
  });
});

// The validators themselves, on deliberately broken documents: each must catch its defect.
const BROKEN_BASE = `
apiVersion: apps/v1
kind: Deployment
metadata: { name: x }
spec:
  selector: { matchLabels: { a: b } }
  template:
    metadata: { labels: { a: b } }
    spec:
      containers:
        - name: c
          image: i
          readinessProbe: { httpGet: { path: /readyz, port: 8080 } }
`;
const deployment = (): K8sObject => parseDocuments(BROKEN_BASE)[0];
const container = (o: K8sObject) => ((o.spec as any).template.spec.containers as any[])[0];

describe('offline validators', () => {
  it('accept the intact document', async () => {
    expect(await shapeProblems([deployment()])).toEqual([]);
    expect(unknownFieldProblems([deployment()])).toEqual([]);
  });

  it('reject a misspelt field, nested deep in a pod template', () => {
    const o = deployment();
    const probe = container(o).readinessProbe;
    probe.httpGet.pathh = probe.httpGet.path; // misspelt
    delete probe.httpGet.path;
    const problems = unknownFieldProblems([o]);
    expect(problems.join('\n')).toMatch(/Deployment\/x.*"pathh".*does not exist in type 'IHTTPGetAction'/);
  });

  it('reject an unknown top-level spec field', () => {
    const o = deployment();
    (o.spec as any).replica = 3;
    expect(unknownFieldProblems([o]).join('\n')).toMatch(/"replica".*does not exist in type 'IDeploymentSpec'/);
  });

  it('reject a wrongly typed value (string replicas)', async () => {
    const o = deployment();
    (o.spec as any).replicas = '3';
    expect((await shapeProblems([o])).join('\n')).toMatch(/replicas/);
  });

  it('reject a missing required field (container name)', async () => {
    const o = deployment();
    delete container(o).name;
    expect((await shapeProblems([o])).join('\n')).toMatch(/name/);
  });

  it('reject an unknown apiVersion or kind', async () => {
    expect((await shapeProblems([{ ...deployment(), kind: 'Deploymnet' }])).join('\n')).toMatch(
      /unknown apiVersion\/kind/,
    );
    expect((await shapeProblems([{ ...deployment(), apiVersion: 'apps/v9' }])).join('\n')).toMatch(
      /unknown apiVersion\/kind/,
    );
  });
});
