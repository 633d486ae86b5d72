import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';

/**
 * The Kubernetes manifests deploy the release they ship with: the image tag of the base and of the example
 * overlay is package.json's version (it was 0.1.0 three releases on, issue 43). A release bumps all three.
 */
const version = (JSON.parse(readFileSync('package.json', 'utf8')) as { version: string }).version;
const tagsOf = (file: string): unknown[] =>
  ((parse(readFileSync(file, 'utf8')) as { images?: Array<{ name: string; newTag?: unknown }> }).images ?? [])
    .filter((image) => image.name === 'tigergraph-bff')
    .map((image) => image.newTag);

describe('the image tag in the Kubernetes manifests', () => {
  it.each(['deploy/kubernetes/base/kustomization.yaml', 'deploy/kubernetes/overlays/example/kustomization.yaml'])(
    'when %s names the image, then its tag is the package version',
    (file) => {
      expect(tagsOf(file)).toEqual([version]);
    },
  );
});
