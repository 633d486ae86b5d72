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

  it('when --verbose is on, then info lines go to stderr (JSON with --json), masked like errors; off, they are silent', () => {
    const stderr: string[] = [];
    const w = { write: (t: string) => stderr.push(t) };
    const human = createOutput({ json: false, verbose: true, stdout: w, stderr: w });
    human.protect('hunter22');
    human.info('credentials: user bob (hunter22)');
    const json = createOutput({ json: true, verbose: true, stdout: w, stderr: w });
    json.info('admin server http://h');
    createOutput({ json: false, stdout: w, stderr: w }).info('quiet');
    expect(stderr.join('')).not.toContain('hunter22');
    expect(stderr).toEqual(['tgbff: credentials: user bob (hun****r22)\n', '{"info":"admin server http://h"}\n']);
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

describe('CLI output on a terminal', () => {
  it('when text from a server carries control characters, then they are shown as \\xNN, never written raw', () => {
    const { out, stdout, stderr } = capture(false);
    const hostile = 'alias\u001b]52;c;cGF3bmVk\u0007\u009b31m end';
    out.result({ a: hostile }, hostile);
    out.note(hostile);
    out.error(new CliError(ExitCode.other, 'refused', `refused: ${hostile}`));
    const written = stdout.join('') + stderr.join('');
    // eslint-disable-next-line no-control-regex
    expect(written).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
    expect(stdout.join('')).toBe('alias\\x1b]52;c;cGF3bmVk\\x07\\x9b31m end\n');
  });
});
