import { CliError, ExitCode } from '../../../src/cli/cli-error.js';
import { createOutput, table } from '../../../src/cli/output.js';

function capture(json: boolean) {
  const stdout: string[] = [];
  const stderr: string[] = [];
  const out = createOutput({
    json,
    stdout: { write: (t: string) => stdout.push(t) },
    stderr: { write: (t: string) => stderr.push(t) },
  });
  return { out, stdout, stderr };
}

describe('CLI output', () => {
  it('when --json is off, then results are the human text and notes go to stderr', () => {
    const { out, stdout, stderr } = capture(false);
    out.result({ a: 1 }, 'human text');
    out.note('a remark');
    expect(stdout.join('')).toBe('human text\n');
    expect(stderr.join('')).toBe('a remark\n');
  });

  it('when --json is on, then stdout is exactly one JSON document and notes are silent', () => {
    const { out, stdout, stderr } = capture(true);
    out.result({ a: 1 }, 'human text');
    out.note('a remark');
    expect(JSON.parse(stdout.join(''))).toEqual({ a: 1 });
    expect(stderr).toEqual([]);
  });

  it('when an error is printed, then it is one line, JSON with code and message under --json', () => {
    const human = capture(false);
    human.out.error(new CliError(ExitCode.notFound, 'not_found', 'no such alias'));
    expect(human.stderr.join('')).toBe('tgbff: no such alias\n');
    const json = capture(true);
    json.out.error(new CliError(ExitCode.notFound, 'not_found', 'no such alias'));
    expect(JSON.parse(json.stderr.join(''))).toEqual({ error: { code: 'not_found', message: 'no such alias' } });
  });

  it('when an error message contains a protected value, then only its mask is printed', () => {
    const { out, stderr } = capture(false);
    out.protect('abcdefghijklmnopqrstuvwxyz012345');
    out.protect('abcdefghijkl');
    out.error(new CliError(ExitCode.other, 'x', 'server said abcdefghijklmnopqrstuvwxyz012345 and abcdefghijkl'));
    expect(stderr.join('')).toBe('tgbff: server said abc****345 and abc****jkl\n');
  });

  it('when a server message says "Wrong password", "token" and "secret", then those words survive and only the values are masked', () => {
    const { out, stderr } = capture(true);
    const token = 'p9l2g8u3ktm0n6d1qhs4rvz7x5w1a0c8';
    out.protect('rong');
    out.protect('Secret');
    out.protect(token);
    out.error(
      new CliError(ExitCode.other, 'x', `Wrong password or secret for token ${token}: Secret (the password) was rong.`),
    );
    expect(JSON.parse(stderr.join('')).error.message).toBe(
      'Wrong password or secret for token p9l****0c8: **** (the password) was ****.',
    );
  });

  it('when rows are tabulated, then columns line up under the header', () => {
    expect(
      table([
        ['A', 'LONG'],
        ['long-value', 'x'],
      ]),
    ).toBe('A           LONG\nlong-value  x');
  });
});
