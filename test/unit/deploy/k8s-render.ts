/**
 * Renders the kustomize trees with the real kubectl (offline: `kubectl kustomize` needs no cluster) and
 * parses the documents it prints.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';

export const REPO = join(import.meta.dirname, '..', '..', '..');
export const KUSTOMIZE_DIRS = ['deploy/kubernetes/base', 'deploy/kubernetes/overlays/example'] as const;

export interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  [field: string]: unknown;
}

/** Why kubectl cannot be used here, or null when it can. */
export function kubectlMissing(): string | null {
  try {
    execFileSync('kubectl', ['version', '--client'], { stdio: 'pipe' });
    return null;
  } catch (err) {
    return `kubectl not runnable (${(err as Error).message.split('\n')[0]})`;
  }
}

export function parseDocuments(text: string): K8sObject[] {
  return parseAllDocuments(text).map((doc, i) => {
    if (doc.errors.length) throw new Error(`document ${i}: ${doc.errors[0].message}`);
    return doc.toJS() as K8sObject;
  });
}

export function kustomize(dir: string): K8sObject[] {
  const out = execFileSync('kubectl', ['kustomize', join(REPO, dir)], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return parseDocuments(out);
}
