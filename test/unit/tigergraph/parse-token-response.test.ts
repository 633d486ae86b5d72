import {
  asGraphRefusal,
  checkDeleteAnswer,
  classifyTokenFailure,
  extractToken,
  parseExpiration,
  parseTokenAnswer,
  readEnvelope,
} from '../../../packages/client/src/parse-token-response.js';
import { TigerGraphError } from '../../../packages/client/src/errors.js';

// Shapes below are the samples in docs/tigergraph-wire.md §1.3–1.5, §2 and §5.
const NOW_MS = 1_700_000_000_000;
const ctx = { nowMs: NOW_MS, lifetimeSec: 2_592_000, credentials: [] as string[] };

const caught = (fn: () => unknown): TigerGraphError => {
  try {
    fn();
  } catch (err) {
    if (err instanceof TigerGraphError) return err;
    throw err;
  }
  throw new Error('expected a TigerGraphError');
};

describe('parseTokenAnswer', () => {
  test('when a 3.5 POST with a secret answers the token at top level and an epoch, then both are read', () => {
    const text =
      '{"code":"REST-0000","expiration":1616042814,"error":false,"message":"Generate new token successfully.\\nWarning: Tigergraph Support cannot restore access to secrets/tokens for security reasons.","token":"tohvf6khjqju8jf0r0l1cohhlm8gi5fq"}';
    expect(parseTokenAnswer('request', 200, text, ctx)).toEqual({
      token: 'tohvf6khjqju8jf0r0l1cohhlm8gi5fq',
      expiresAt: 1616042814,
    });
  });

  test('when a user/password POST nests the token under results, then it is found there', () => {
    const text =
      '{"code":"REST-0000","expiration":1648410519,"error":false,"message":"Generate new token successfully.","results":{"token":"j8s70l647fcdjlmpvedudl4btitm4luh"}}';
    expect(parseTokenAnswer('request', 200, text, ctx)).toEqual({
      token: 'j8s70l647fcdjlmpvedudl4btitm4luh',
      expiresAt: 1648410519,
    });
  });

  test('when the answer has no expiration (3.6+ token alone), then expiry is now + the lifetime asked', () => {
    const text = '{"error":false,"message":"","results":{"token":"abc"}}';
    expect(parseTokenAnswer('request', 200, text, { ...ctx, lifetimeSec: 600 })).toEqual({
      token: 'abc',
      expiresAt: NOW_MS / 1000 + 600,
    });
  });

  test('when the 3.2 refresh bug answers the lifetime instead of an epoch, then it counts from now', () => {
    const text =
      '{"code":"REST-0000","expiration":15,"error":false,"message":"Refresh token successfully.","token":"0mq98l9pderkaivndf820gudg923p3l0"}';
    expect(parseTokenAnswer('refresh', 200, text, ctx).expiresAt).toBe(NOW_MS / 1000 + 15);
  });

  test('when 4.1 /gsql/v1/tokens answers a Java date string, then it becomes epoch seconds', () => {
    const text =
      '{"expiration":"Wed Jul 10 06:12:47 UTC 2024","error":false,"message":"Generate new JWT token successfully.","token":"eyJhbGciOiJIUzI1NiJ9.e30.x"}';
    expect(parseTokenAnswer('request', 200, text, ctx)).toEqual({
      token: 'eyJhbGciOiJIUzI1NiJ9.e30.x',
      expiresAt: Date.UTC(2024, 6, 10, 6, 12, 47) / 1000,
    });
  });

  test('when 4.1 /requesttoken answers {"error":false,"token":JWT}, then the token is read', () => {
    expect(parseTokenAnswer('request', 200, '{"error":false,"token":"eyJ.a.b"}', ctx).token).toBe('eyJ.a.b');
  });

  test('when the answer is success but carries no token, then it is a protocol error', () => {
    expect(caught(() => parseTokenAnswer('request', 200, '{"error":false,"message":"ok"}', ctx)).kind).toBe('protocol');
  });

  test('when an error answer arrives as HTTP 200 with "error": true, then it throws', () => {
    const err = caught(() =>
      parseTokenAnswer('request', 200, '{"error":true,"message":"The secret is invalid.","code":"REST-9999"}', ctx),
    );
    expect(err.kind).toBe('invalid_credentials');
    expect(err.status).toBe(200);
    expect(err.code).toBe('REST-9999');
  });
});

describe('parseExpiration', () => {
  test.each<[unknown, number | undefined]>([
    [1616042814, 1616042814],
    ['1616042814', 1616042814],
    [100, NOW_MS / 1000 + 100],
    ['100', NOW_MS / 1000 + 100],
    [-1, undefined],
    [0, undefined],
    [undefined, undefined],
    ['not a date', undefined],
    ['2024-07-10T06:12:47Z', Date.UTC(2024, 6, 10, 6, 12, 47) / 1000],
    ['Thu Mar 06 09:00:00 GMT 2025', Date.UTC(2025, 2, 6, 9, 0, 0) / 1000],
  ])('when expiration is %p, then it reads as %p', (value, expected) => {
    expect(parseExpiration(value, NOW_MS)).toBe(expected);
  });
});

describe('classifyTokenFailure', () => {
  const classify = (status: number, text: string, credentials: string[] = []) =>
    classifyTokenFailure('request', status, readEnvelope(text), credentials);

  test('when auth is disabled (404 REST-1000 "Endpoint is not found from url = /requesttoken"), then kind is auth_disabled', () => {
    const err = classify(
      404,
      '{"error":true,"code":"REST-1000","message":"Endpoint is not found from url = /requesttoken, please use GET /endpoints to list all valid endpoints."}',
    );
    expect(err.kind).toBe('auth_disabled');
    expect(err.message).toBe("REST++ authentication is not enabled, can't generate token.");
    expect(err.status).toBe(404);
  });

  test('when only the message says the endpoint is missing (no code), then it is still auth_disabled', () => {
    expect(classify(200, '{"error":true,"message":"Endpoint is not found from url = /requesttoken"}').kind).toBe(
      'auth_disabled',
    );
  });

  test('when the token does not exist (REST-3300), then kind is token_not_found', () => {
    const err = classifyTokenFailure(
      'delete',
      200,
      readEnvelope('{"error":true,"code":"REST-3300","message":"Drop token failed: token doesn\'t exist."}'),
      [],
    );
    expect(err.kind).toBe('token_not_found');
    expect(err.code).toBe('REST-3300');
  });

  test('when query-string credentials reach 3.5+ (REST-1101), then kind is bad_request', () => {
    const err = classify(
      200,
      '{"error":true,"code":"REST-1101","message":"The request cannot be processed: expected a JSON payload, but a query string was given.\\nPlease visit the docs."}',
    );
    expect(err.kind).toBe('bad_request');
  });

  test('when the graph name is wrong (HTTP 400), then kind is bad_request', () => {
    expect(classify(400, '{"error":true,"message":"Graph nosuch does not exist."}').kind).toBe('bad_request');
  });

  test('when the server answers 401 or 403, then kind is invalid_credentials', () => {
    expect(classify(401, '{"error":true,"message":"Wrong password!"}').kind).toBe('invalid_credentials');
    expect(classify(403, 'Forbidden').kind).toBe('invalid_credentials');
  });

  test('when the answer is not JSON, then kind is protocol', () => {
    expect(classify(502, '<html>Bad gateway</html>').kind).toBe('protocol');
    expect(classify(200, 'hello').kind).toBe('protocol');
  });

  test('when a server message echoes a credential, then the message carries only its mask', () => {
    const secret = 'tohvf6khjqju8jf0r0l1cohhlm8gi5fq';
    const err = classify(200, `{"error":true,"message":"secret ${secret} is not valid"}`, [secret]);
    expect(err.message).toContain('toh****5fq');
    expect(err.message).not.toContain(secret);
  });
});

describe('readEnvelope and extractToken', () => {
  test('when error is the string "false" and the message has raw newlines (GET /version), then it parses as success', () => {
    const env = readEnvelope(
      '{"error":"false","message":"TigerGraph RESTPP:\n --- Version ---\nproduct  release_3.9.3_09-12-2023 abc  2023-09-12 10:00:00 -0700\n"}',
    );
    expect(env.error).toBe(false);
    expect(env.message).toContain('release_3.9.3_');
  });

  test('when the token is both missing at top level and in results, then extractToken is undefined', () => {
    expect(extractToken({ results: {} })).toBeUndefined();
    expect(extractToken({ token: '' })).toBeUndefined();
  });
});

describe('checkDeleteAnswer', () => {
  test('when DELETE answers success with expiration -1, then it resolves', () => {
    expect(() =>
      checkDeleteAnswer(
        200,
        '{"code":"REST-0000","expiration":-1,"error":false,"message":"Drop token successfully.","token":"0mq98l9pderkaivndf820gudg923p3l0"}',
        [],
      ),
    ).not.toThrow();
  });

  test('when a 4.1 JWT drop answers success without a token, then it resolves', () => {
    expect(() =>
      checkDeleteAnswer(200, '{"error":false,"message":"Successfully dropped the specified JWT tokens"}', []),
    ).not.toThrow();
  });

  test('when DELETE names a missing token, then it throws token_not_found', () => {
    expect(caught(() => checkDeleteAnswer(200, '{"error":true,"code":"REST-3300","message":"x"}', [])).kind).toBe(
      'token_not_found',
    );
  });
});

describe('asGraphRefusal', () => {
  const refused = (kind: 'bad_request' | 'invalid_credentials' | 'protocol', status: number, message: string) =>
    new TigerGraphError(kind, message, { status });

  test('when 4.1+ answers 400 to a token request with a graph, then it is graph_not_found', () => {
    const err = asGraphRefusal(refused('bad_request', 400, 'Token request refused: HTTP 400'), 'jwt', 'nosuch');
    expect(err).toMatchObject({ kind: 'graph_not_found', status: 400 });
    expect((err as Error).message).toBe("Graph 'nosuch' does not exist, or this secret is not for it.");
  });

  test('when a 3.x refusal quotes the graph, then it is graph_not_found; one that does not stays as it was', () => {
    const named = refused('invalid_credentials', 200, "Generate token failed, the secret is not for graph 'g2'.");
    expect(asGraphRefusal(named, 'json', 'g2')).toMatchObject({ kind: 'graph_not_found' });
    const plain = refused('invalid_credentials', 200, 'Generate token failed, the secret is invalid.');
    expect(asGraphRefusal(plain, 'json', 'g2')).toBe(plain);
  });

  test('when 4.1 answers 404 (no such endpoint: an older server), then it is not read as a graph refusal', () => {
    const missing = refused('protocol', 404, 'Token request failed on the server: HTTP 404');
    expect(asGraphRefusal(missing, 'jwt', 'social')).toBe(missing);
  });

  test('when the failure is a transport one, then it is left alone', () => {
    const timeout = new TigerGraphError('timeout', 'timed out');
    expect(asGraphRefusal(timeout, 'jwt', 'social')).toBe(timeout);
  });
});
