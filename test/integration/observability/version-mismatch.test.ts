import { startSimulator, type SimulatorHandle } from '../../../src/simulator/index.js';
import { startServiceProcess, type ServiceProcess } from '../../helpers/service-process.js';
import { untilMatch } from '../../helpers/wait.js';
import { processLogLines, type LogLine } from './log-lines.js';

// A TG_VERSION that disagrees with the TigerGraph it points at (issue 43, item 2): the service as shipped
// (dist/main.js) against the simulator of another version. The start-up probe warns naming both versions and
// TG_VERSION; /readyz's details say so; a login's failure names TG_VERSION in its fault line.

const CSRF = { 'X-Requested-With': 'XMLHttpRequest', 'Content-Type': 'application/json' };
type Line = LogLine;
const linesOf = (svc: ServiceProcess): Line[] => processLogLines(svc.output());

// A 4.1 data server still answers 3.x's token call (/requesttoken), so that login works: the warning is what
// tells the operator. A 3.9 one has no 4.1 token endpoint, so every login fails.
describe.each([
  ['4.1.0', '3.9.3', 'TigerGraph answers in the 4.x format, TG_VERSION is 3.9.3', true, 'works'],
  ['3.9.3', '4.1.0', 'TigerGraph answers in the 3.x format, TG_VERSION is 4.1.0', true, 'fails'],
  ['3.9.3', '3.9.3', '', false, 'works'],
])('a simulator of TigerGraph %s and TG_VERSION=%s', (simVersion, configured, sentence, disagree, loginOutcome) => {
  let sim: SimulatorHandle;
  let svc: ServiceProcess;
  beforeAll(async () => {
    sim = await startSimulator({ version: simVersion });
    svc = await startServiceProcess({
      NODE_ENV: 'development',
      TG_RESTPP_URL: sim.restppUrl,
      TG_GSQL_URL: sim.gsqlUrl,
      TG_VERSION: configured,
      FAULT_LOG_INTERVAL_MS: '1000',
    });
  });
  afterAll(async () => {
    await svc?.stop();
    await sim?.close();
  });

  it(
    disagree
      ? 'then start-up warns naming both versions and TG_VERSION'
      : 'then start-up says it is reachable and warns of nothing',
    async () => {
      await untilMatch('the probe line', () => svc.output(), /"msg":"TigerGraph reachable at/);
      const mismatch = linesOf(svc).find((l) => l.fault === 'tg_version_mismatch');
      if (!disagree) {
        expect(mismatch).toBeUndefined();
        return;
      }
      await untilMatch('the mismatch line', () => svc.output(), /"fault":"tg_version_mismatch"/);
      const line = linesOf(svc).find((l) => l.fault === 'tg_version_mismatch');
      expect(line).toMatchObject({ level: 40, setting: 'TG_VERSION', configuredVersion: configured });
      expect(String(line?.msg)).toBe(`${sentence}: set TG_VERSION to the version TigerGraph runs`);
    },
  );

  it(disagree ? 'then /readyz is ready but its details name the mismatch' : 'then /readyz has no details', async () => {
    const res = await fetch(`${svc.url}/readyz`);
    const body = (await res.json()) as { status: string; details?: Record<string, Line> };
    expect(res.status).toBe(200);
    if (disagree)
      expect(body.details?.upstream).toEqual({ fault: 'tg_version_mismatch', setting: 'TG_VERSION', reason: sentence });
    else expect(body).not.toHaveProperty('details');
  });

  it(`then a login ${loginOutcome}${loginOutcome === 'fails' ? ' and its log line names TG_VERSION' : ''}`, async () => {
    const secret = sim.createSecret({ alias: 'mismatch' }).value;
    const res = await fetch(`${svc.url}/auth/login`, {
      method: 'POST',
      headers: CSRF,
      body: JSON.stringify({ secret, graph: 'social' }),
    });
    const body = (await res.json()) as { error?: { code: string } };
    if (loginOutcome === 'works') {
      expect(res.status).toBe(200);
      return;
    }
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(body.error?.code).toBeDefined();
    // Whatever the old wire format meets, the line that explains it names TG_VERSION.
    const id = res.headers.get('x-request-id');
    await untilMatch('the access line', () => svc.output(), new RegExp(`"requestId":"${id}"[^\\n]*"msg":"request"`));
    const explained = linesOf(svc).filter((l) => String(l.hint ?? '').includes('TG_VERSION'));
    expect(explained.length).toBeGreaterThan(0);
    expect(svc.output()).not.toContain(secret);
  });
});
