import { readFileSync } from 'node:fs';

/**
 * The release this build is: package.json's `version`, the one number `tgbff --version`, the
 * `tgbff_build_info` metric, OpenAPI `info.version` and CHANGELOG.md state (test/unit/observability/version.test.ts
 * keeps them equal). package.json sits two levels up from both src/observability and dist/observability.
 */
export function packageVersion(): string {
  const text = readFileSync(new URL('../../package.json', import.meta.url), 'utf8');
  const version = (JSON.parse(text) as { version?: unknown }).version;
  if (typeof version !== 'string') throw new Error('package.json has no version');
  return version;
}
