import { CSRF } from '../multi-instance/cluster.js';
import { rawRequest, rawRoundTrip } from '../../helpers/raw-request.js';
import { until } from '../../helpers/wait.js';
import { processLogLines, type LogLine } from '../observability/log-lines.js';
import { startGuardRig, type GuardRig } from './guard-rig.js';

// A client chooses its X-Request-Id. Were it the request id, anyone could give their requests the id of
// someone else's (an operator following that id would read both as one request, here and in TigerGraph's
// log), one id to all of them, or an id built to forge or hide log lines. Without a trusted proxy
// (TRUST_PROXY unset, as here) the service mints every id; the client's own is only logged beside it as
// `clientRequestId`, bounded and escaped (src/http/pipeline/request-id.ts).

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const CAP = 128;

describe('a hostile X-Request-Id (a real service process, no trusted proxy)', () => {
  let rig: GuardRig;
  beforeAll(async () => {
    rig = await startGuardRig('request-id');
  });
  afterAll(() => rig?.close());

  const lines = (): LogLine[] => processLogLines(rig.bff.output());
  const accessLineOf = (requestId: string): Promise<LogLine> =>
    until(`the access line of ${requestId}`, () =>
      lines().find((l) => l.msg === 'request' && l.requestId === requestId),
    );

  test("when a client sends another request's id, then its request gets an id of its own everywhere, and the forged one is only its clientRequestId", async () => {
    const cookie = await rig.login();
    const victim = await rawRequest(rig.bff.url, '/api/echo', { headers: { ...CSRF, cookie } });
    expect(victim.status).toBe(200);
    const victimId = String(victim.headers['x-request-id']);
    expect(victimId).toMatch(UUID);

    const forged = await rawRequest(rig.bff.url, '/api/echo', {
      headers: { ...CSRF, cookie, 'x-request-id': victimId },
    });
    expect(forged.status).toBe(200);
    const ownId = String(forged.headers['x-request-id']);
    expect(ownId).toMatch(UUID);
    expect(ownId).not.toBe(victimId);
    // TigerGraph is sent the request's own id, not the forged one.
    const upstream = rig.sim
      .seen()
      .filter((r) => r.path === '/echo')
      .map((r) => r.headers['x-request-id']);
    expect(upstream.slice(-2)).toEqual([victimId, ownId]);
    // One access line with the victim's id, the victim's; the forger's line says what it sent, apart.
    expect(await accessLineOf(ownId)).toMatchObject({ clientRequestId: victimId, status: 200 });
    await accessLineOf(victimId);
    expect(lines().filter((l) => l.requestId === victimId && l.msg === 'request')).toHaveLength(1);
  });

  test('when a client sends a huge id, then the request gets a UUID and the line keeps at most 128 characters of it', async () => {
    const huge = `big-${'x'.repeat(12_000)}`;
    const res = await rawRequest(rig.bff.url, '/healthz', { headers: { 'x-request-id': huge } });
    expect(res.status).toBe(200);
    const id = String(res.headers['x-request-id']);
    expect(id).toMatch(UUID);
    const line = await accessLineOf(id);
    expect(line.clientRequestId).toBe(`${huge.slice(0, CAP)}…`);
    // Nowhere in the output more of it than that: the line is bounded, not the whole header.
    expect(rig.bff.output()).not.toContain(huge.slice(0, CAP + 1));
  });

  test('when a client id carries tab, C1 controls, a line separator, quotes, backslashes or a forged line, then the line keeps it as printable ASCII and the output has none of them raw', async () => {
    // Bytes as a header carries them (latin1): 0x85 NEL, 0x9B CSI, U+2028's UTF-8 bytes, each raw.
    const id = Buffer.concat([
      Buffer.from('evil\t'),
      Buffer.from([0x85, 0x9b]),
      Buffer.from('31m', 'latin1'),
      Buffer.from([0xe2, 0x80, 0xa8]),
      Buffer.from('"},{"level":60,"msg":"forged\\'),
    ]);
    const head = Buffer.concat([
      Buffer.from('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nX-Request-Id: '),
      id,
      Buffer.from('\r\n\r\n'),
    ]);
    const answer = await rawRoundTrip(rig.bff.port, head);
    expect(answer.status).toBe(200);
    const ownId = answer.headers.get('x-request-id')?.[0] ?? '';
    expect(ownId).toMatch(UUID);
    const line = await accessLineOf(ownId);
    expect(line.clientRequestId).toBe(
      'evil\\u0009\\u0085\\u009b31m\\u00e2\\u0080\\u00a8"},{"level":60,"msg":"forged\\\\',
    );
    expect(String(line.clientRequestId)).toMatch(/^[\x20-\x7e]*$/);
    const out = rig.bff.output();
    for (const raw of ['\u0085', '\u009b', '\u2028', '\u0080'])
      expect({ raw, found: out.includes(raw) }).toEqual({ raw, found: false });
    // The forged "line" stayed inside the string: no line at level 60 came of it.
    expect(lines().filter((l) => l.level === 60)).toEqual([]);
  });
});
