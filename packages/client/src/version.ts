import { TigerGraphError } from './errors.js';

export interface Version {
  major: number;
  minor: number;
  patch: number;
}

/** Accepts "3.9.3", "v4.1", "release_3.10.1_01-02-2024" and the like; missing parts count as 0. */
export function parseVersion(value: string): Version {
  const match = /(\d+)\.(\d+)(?:\.(\d+))?/.exec(String(value ?? ''));
  if (match === null) {
    throw new TigerGraphError(
      'bad_request',
      `Unrecognised TigerGraph version "${String(value)}"; expected e.g. "3.9.3"`,
    );
  }
  return { major: Number(match[1]), minor: Number(match[2]), patch: Number(match[3] ?? 0) };
}

/** Orders two versions (negative when a < b), so gates read as `compareVersions(v, '3.6') >= 0`. */
export function compareVersions(a: Version | string, b: Version | string): number {
  const x = typeof a === 'string' ? parseVersion(a) : a;
  const y = typeof b === 'string' ? parseVersion(b) : b;
  return x.major - y.major || x.minor - y.minor || x.patch - y.patch;
}
