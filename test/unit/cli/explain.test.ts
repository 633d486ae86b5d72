import { CliError, ExitCode } from '../../../src/cli/cli-error.js';
import { explain, type Situation } from '../../../src/cli/explain.js';
import { TigerGraphError, type TigerGraphErrorKind } from '../../../packages/client/src/errors.js';

const admin: Situation = {
  server: 'admin',
  url: 'http://a:14240',
  user: 'bob',
  credentialSource: 'netrc file /h/.netrc',
  graph: 'g',
  timeoutMs: 500,
};
const data: Situation = {
  server: 'data',
  url: 'http://a:9000',
  secretSource: 'TG_SECRET',
  token: 'tok0123456789abcdefghij',
  timeoutMs: 500,
};

describe('failure explanations', () => {
  it.each<[TigerGraphErrorKind, Situation, number, string, RegExp]>([
    [
      'unreachable',
      admin,
      ExitCode.unreachable,
      'unreachable',
      /cannot reach the admin server at http:\/\/a:14240.*--gsql-url/,
    ],
    ['timeout', data, ExitCode.unreachable, 'timeout', /did not answer within 500 ms.*--timeout-ms/],
    ['auth_disabled', data, ExitCode.authDisabled, 'auth_disabled', /authentication is disabled on the data server/],
    [
      'invalid_credentials',
      admin,
      ExitCode.badCredentials,
      'bad_credentials',
      /refused user 'bob' \(credentials from netrc file \/h\/\.netrc\)/,
    ],
    ['invalid_credentials', data, ExitCode.badCredentials, 'bad_credentials', /rejected the secret from TG_SECRET/],
    ['token_not_found', data, ExitCode.notFound, 'not_found', /token tok\*\*\*\*hij does not exist/],
    ['secret_not_found', admin, ExitCode.notFound, 'not_found', /boom/],
    ['secret_exists', admin, ExitCode.other, 'secret_exists', /boom: choose another --alias/],
    ['bad_request', admin, ExitCode.usage, 'bad_request', /refused the request: boom/],
    ['protocol', data, ExitCode.other, 'protocol', /unexpected answer from the data server at http:\/\/a:9000: boom/],
  ])(
    'when the client fails with %s, then the exit code and message say what to do',
    (kind, where, exitCode, code, message) => {
      const err = explain(new TigerGraphError(kind, 'boom.'), where);
      expect(err).toMatchObject({ exitCode, code });
      expect(err.message).toMatch(message);
      expect(err.message).not.toContain('tok0123456789abcdefghij');
    },
  );

  it('when the admin server gives an answer the client cannot read, then the message points at the graph and user', () => {
    expect(explain(new TigerGraphError('protocol', 'odd'), admin).message).toContain(
      "check that graph 'g' exists and 'bob' may use it",
    );
  });

  it('when an admin call fails, then the message names the user and where the credentials came from, once', () => {
    for (const kind of ['unreachable', 'timeout', 'bad_request', 'protocol', 'invalid_credentials'] as const) {
      const message = explain(new TigerGraphError(kind, 'boom.'), admin).message;
      expect(message.split('credentials from netrc file /h/.netrc')).toHaveLength(2);
    }
    expect(explain(new TigerGraphError('unreachable', 'x'), admin).message).toMatch(
      /at http:\/\/a:14240.*\[user 'bob', credentials from netrc file \/h\/\.netrc\]$/,
    );
  });

  it('when the failure is already a CLI error, then it passes through unchanged', () => {
    const original = new CliError(ExitCode.usage, 'usage', 'x');
    expect(explain(original, admin)).toBe(original);
  });

  it('when the failure is something else, then it is exit 1 with its message', () => {
    expect(explain(new Error('kaput'), admin)).toMatchObject({
      exitCode: ExitCode.other,
      code: 'internal',
      message: 'unexpected failure: kaput',
    });
  });
});
