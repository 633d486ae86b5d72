import { readFileSync } from 'node:fs';
import { ERROR_CODES } from '../../../src/errors.js';
import { CSRF_CHECKS } from '../../../src/http/pipeline/csrf.js';
import { DEPENDENCIES, FAULT_KINDS } from '../../../src/observability/dependency-faults.js';
import { VERSION_MISMATCH } from '../../../src/relay/upstream-version.js';

// docs/troubleshooting.md has symptom, cause and fix for every code the service answers or logs (issue 43, item 5).
const PAGE = readFileSync(new URL('../../../docs/troubleshooting.md', import.meta.url), 'utf8');
const named = new Set([...PAGE.matchAll(/`([a-z_]+)`/g)].map((m) => m[1]));

describe('docs/troubleshooting.md', () => {
  it('when the service answers an error code, then the page has a row for it', () => {
    const rows = new Set([...PAGE.matchAll(/^\| `([a-z_]+)` \| \d{3} \|/gm)].map((m) => m[1]));
    expect(Object.keys(ERROR_CODES).filter((code) => !rows.has(code))).toEqual([]);
  });

  it('when the service logs a fault code, then the page names it', () => {
    const logCodes = [
      ...DEPENDENCIES.flatMap((dependency) => FAULT_KINDS.map((kind) => `${dependency}_${kind}`)),
      ...CSRF_CHECKS,
      VERSION_MISMATCH,
      'fault_log_overflow',
    ];
    expect(logCodes.filter((code) => !named.has(code))).toEqual([]);
  });

  it('when another page links it, then README and docs/api.md do', () => {
    expect(readFileSync(new URL('../../../README.md', import.meta.url), 'utf8')).toContain('docs/troubleshooting.md');
    expect(readFileSync(new URL('../../../docs/api.md', import.meta.url), 'utf8')).toContain('troubleshooting.md');
  });
});
