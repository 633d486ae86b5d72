import { TigerGraphError } from '../../../packages/client/src/errors.js';
import {
  cleanGsqlOutput,
  parseCreateSecret,
  parseDropSecret,
  parseShowSecrets,
} from '../../../packages/client/src/parse-gsql-output.js';

// Shapes from docs/tigergraph-wire.md §4.1–4.2.
const kindOf = (fn: () => unknown): string | undefined => {
  try {
    fn();
  } catch (err) {
    return err instanceof TigerGraphError ? err.kind : 'not a TigerGraphError';
  }
  return undefined;
};

describe('cleanGsqlOutput', () => {
  test('when the output has __GSQL__ control lines and ANSI colours, then the text keeps neither and the return code is read', () => {
    const raw =
      '\u001b[32mUsing graph \'social\'\u001b[0m\n__GSQL__COOKIES__,{"sessionId":"1"}\nThe secret: abc has been created\n__GSQL__RETURN__CODE__,0\n';
    expect(cleanGsqlOutput(raw)).toEqual({
      text: "Using graph 'social'\nThe secret: abc has been created",
      returnCode: 0,
    });
  });
});

describe('parseCreateSecret', () => {
  test('when CREATE SECRET prints "The secret: <value>" with trailing words, then the value is the next word', () => {
    const out =
      'Using graph \'social\'\nThe secret: 59ccqdlqmkfcqjl99u2jv4qt2telmeoj has been created for user "tigergraph".';
    expect(parseCreateSecret(out, 'a1')).toBe('59ccqdlqmkfcqjl99u2jv4qt2telmeoj');
  });

  test('when the alias already exists, then kind is secret_exists with code E-00001', () => {
    const attempt = () => parseCreateSecret("Using graph 'social'\nThe secret alias a1 already exists.", 'a1');
    expect(kindOf(attempt)).toBe('secret_exists');
    expect(attempt).toThrow(expect.objectContaining({ code: 'E-00001' }));
  });

  test('when no secret can be found in the output, then kind is protocol with code E-00002', () => {
    const attempt = () => parseCreateSecret("Using graph 'social'\nSemantic Check Fails");
    expect(kindOf(attempt)).toBe('protocol');
    expect(attempt).toThrow(expect.objectContaining({ code: 'E-00002' }));
  });
});

describe('parseShowSecrets', () => {
  test('when Token lines sit between Secret and Alias (the 2021 TG Cloud sample), then no secret is dropped', () => {
    const out = [
      "Using graph 'MyGraph'",
      '- Secret: phd****0iq',
      '- Token: s966iqc1639et8k714sh7gl4gu9traqq expire at: 2021-08-13 16:08:49',
      '- Alias: demo_secret',
      '- GraphName: MyGraph',
      '- Secret: crh****b06',
      '- Alias: testSecret',
      '- GraphName: MyGraph',
    ].join('\n');
    expect(parseShowSecrets(out)).toEqual([
      { alias: 'demo_secret', secret: 'phd****0iq', graph: 'MyGraph' },
      { alias: 'testSecret', secret: 'crh****b06', graph: 'MyGraph' },
    ]);
  });

  test('when the items are indented as in the docs and several tokens are listed, then records still come out', () => {
    const out = [
      '    - Secret: abc****xyz',
      '      - Token: t1 expire at: 2024-01-01 00:00:00',
      '      - Token: t2 expire at: 2024-01-02 00:00:00',
      '      - Alias: AUTO_GENERATED_ALIAS_k2j4h5g',
      '      - GraphName: social',
    ].join('\r\n');
    expect(parseShowSecrets(out)).toEqual([
      { alias: 'AUTO_GENERATED_ALIAS_k2j4h5g', secret: 'abc****xyz', graph: 'social' },
    ]);
  });

  test('when there are no secrets, then the list is empty', () => {
    expect(parseShowSecrets("Using graph 'social'\n")).toEqual([]);
  });
});

describe('parseDropSecret', () => {
  test('when the output says "Successfully dropped secrets", then it resolves', () => {
    expect(
      kindOf(() => parseDropSecret("Using graph 'social'\nSuccessfully dropped secrets: a1.", 'a1')),
    ).toBeUndefined();
  });

  test('when the output says "Failed to drop secrets", then kind is secret_not_found', () => {
    expect(
      kindOf(() => parseDropSecret("Using graph 'social'\nFailed to drop secrets: nosuch does not exist.", 'nosuch')),
    ).toBe('secret_not_found');
  });

  test('when the output is something else, then kind is protocol', () => {
    expect(kindOf(() => parseDropSecret("Using graph 'social'\nPermission denied somewhere", 'a1'))).toBe('protocol');
  });
});
