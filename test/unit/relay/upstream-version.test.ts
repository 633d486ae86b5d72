import { reportedVersionOf, versionDisagreement } from '../../../src/relay/upstream-version.js';
import { versionMessage } from '../../../src/simulator/restpp-info.js';

describe('what TigerGraph reports of its version without a token', () => {
  it('when /version answers, then its text gives the exact version', () => {
    const body = JSON.stringify({ error: 'false', message: versionMessage('3.10.1'), results: [] });
    expect(reportedVersionOf(200, body)).toEqual({ version: '3.10.1' });
  });

  it('when /version is refused, then a 4.x envelope (a version object first) tells the line, and its absence 3.x', () => {
    const v4 = JSON.stringify({
      version: { edition: 'enterprise', api: 'v2', schema: 0 },
      error: true,
      code: 'REST-10016',
    });
    expect(reportedVersionOf(401, v4)).toEqual({ line: '4.x' });
    expect(reportedVersionOf(403, JSON.stringify({ error: true, code: 'REST-10016' }))).toEqual({ line: '3.x' });
  });

  it('when the answer is neither, then nothing is reported', () => {
    expect(reportedVersionOf(404, 'Not Found')).toEqual({});
    expect(reportedVersionOf(200, '<html>a proxy page</html>')).toEqual({});
  });
});

describe('TG_VERSION against what TigerGraph reports', () => {
  it.each([
    ['3.9.3', { version: '3.9.1' }, null],
    ['3.9.3', { version: '3.10.1' }, 'TigerGraph reports 3.10.1, TG_VERSION is 3.9.3'],
    ['4.1.0', { version: '3.9.3' }, 'TigerGraph reports 3.9.3, TG_VERSION is 4.1.0'],
    ['3.9.3', { line: '4.x' as const }, 'TigerGraph answers in the 4.x format, TG_VERSION is 3.9.3'],
    ['4.1', { line: '4.x' as const }, null],
    ['4.1.0', { line: '3.x' as const }, 'TigerGraph answers in the 3.x format, TG_VERSION is 4.1.0'],
    ['3.9.3', {}, null],
  ])('when TG_VERSION is %s and TigerGraph says %j, then %s', (configured, reported, expected) => {
    expect(versionDisagreement(configured, reported)).toBe(expected);
  });
});
