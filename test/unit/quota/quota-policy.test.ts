import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ConfigError, loadConfig } from '../../../src/config.js';
import {
  parsePolicy,
  parseQueryPolicies,
  policyLimits,
  PolicyError,
  type QuotaLimits,
} from '../../../src/quota/quota-policy.js';
import { quotaTarget } from '../../../src/quota/request-target.js';

const DEFAULTS: QuotaLimits = { rate: 50, windowSec: 1, burst: 10, burstWindowSec: 10, concurrency: 8 };

function policyFileWith(text: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'quota-policy-'));
  const file = path.join(dir, 'policy.yaml');
  writeFileSync(file, text);
  return file;
}

function configIssue(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
  } catch (err) {
    if (err instanceof ConfigError) return err.issues.map((i) => `${i.key}: ${i.message}`);
    throw err;
  }
  return [];
}

describe('quota policy file', () => {
  it('when rules leave fields out, then rates take the defaults and concurrency none; query rules come first', () => {
    const rules = parsePolicy(
      `rules:
  - name: social-graph
    graph: social
    rate: 20
  - name: expensive
    graph: social
    query: friends
    rate: 2
    window: 10
    concurrency: 1
`,
      DEFAULTS,
    );
    expect(rules).toEqual([
      {
        name: 'expensive',
        graph: 'social',
        query: 'friends',
        rate: 2,
        windowSec: 10,
        burst: 10,
        burstWindowSec: 10,
        concurrency: 1,
      },
      { name: 'social-graph', graph: 'social', rate: 20, windowSec: 1, burst: 10, burstWindowSec: 10, concurrency: 0 },
    ]);
  });

  it('when the file is JSON, then it reads the same', () => {
    expect(parsePolicy('{"rules":[{"name":"g","graph":"social","rate":3}]}', DEFAULTS)[0]).toMatchObject({ rate: 3 });
  });

  it.each([
    ['rules: [{name: x, graph: social, rte: 3}]', /rules\.0: Unrecognized key/i],
    ['rules: [{name: x, query: q}]', /needs graph/],
    ['rules: [{name: "Bad Name", graph: social}]', /rules\.0\.name: must be/],
    ['rules: [{name: x, graph: "so/cial"}]', /rules\.0\.graph: must be a TigerGraph graph name/],
    ['rules: [{name: x, graph: social, rate: -1}]', /rules\.0\.rate/],
    ['rules: [{name: x, graph: a}, {name: x, graph: b}]', /used twice/],
    ['rules: [{name: default, graph: a}]', /used twice/],
    ['rules: [', /not valid YAML/],
    ['limits: {}', /file: Unrecognized key/],
    ['rules: 3', /rules: .*expected array/],
  ])('when the file holds %j, then it is refused naming the problem', (text, message) => {
    expect(() => parsePolicy(text, DEFAULTS)).toThrow(PolicyError);
    expect(() => parsePolicy(text, DEFAULTS)).toThrow(message);
  });

  it('when QUOTA_POLICY_FILE is bad or missing, then the start stops naming the key and the rule', () => {
    expect(configIssue({ QUOTA_POLICY_FILE: '/nonexistent/policy.yaml' })).toEqual([
      'QUOTA_POLICY_FILE: cannot read the file',
    ]);
    expect(configIssue({ QUOTA_POLICY_FILE: policyFileWith('rules: [{name: x, graph: social, rate: 1.5}]') })).toEqual([
      expect.stringMatching(/^QUOTA_POLICY_FILE: rules\.0\.rate: /),
    ]);
  });

  it('when nothing is set, then quotas are off, GSQL-TIMEOUT caps at UPSTREAM_TIMEOUT_MS and answers at 64 MiB', () => {
    const config = loadConfig({});
    expect(policyLimits(config.quota)).toBe(false);
    expect(config.quota).toEqual({
      defaults: { rate: 0, windowSec: 1, burst: 0, burstWindowSec: 10, concurrency: 0 },
      rules: [],
      leaseMs: 15_000,
    });
    expect(config.queryGuardrails).toEqual({
      timeoutMaxMs: 30_000,
      timeoutDefaultMs: 16_000,
      responseLimitMax: 67_108_864,
    });
    expect(loadConfig({ UPSTREAM_TIMEOUT_MS: '5000' }).queryGuardrails.timeoutDefaultMs).toBe(5000);
  });

  it('when only a policy rule limits, then the quota is on; when a rule only inherits a zero rate, it is not', () => {
    const file = policyFileWith('rules: [{name: heavy, graph: social, query: friends, rate: 1, window: 60}]');
    expect(policyLimits(loadConfig({ QUOTA_POLICY_FILE: file }).quota)).toBe(true);
    const idle = policyFileWith('rules: [{name: idle, graph: social}]');
    expect(policyLimits(loadConfig({ QUOTA_POLICY_FILE: idle }).quota)).toBe(false);
  });
});

describe('quota target', () => {
  it.each([
    ['/api/query/social/friends?person=a', { graph: 'social', query: 'friends' }],
    ['/api/query/soci%61l/fri%65nds', { graph: 'social', query: 'friends' }],
    ['/api/graph/social/vertices/Person', { graph: 'social' }],
    ['/api/builtins/social', { graph: 'social' }],
    ['/api/echo', {}],
    ['/api/version', {}],
  ])('when the target is %s, then the rule match sees %j', (url, target) => {
    expect(quotaTarget(url, '/api')).toEqual(target);
  });

  it('when the path is malformed, then it is refused as the relay refuses it', () => {
    expect(() => quotaTarget('/api/query/social%2fx/q', '/api')).toThrow(
      expect.objectContaining({ code: 'invalid_path' }),
    );
  });

  it('when the file names queries, then each gets its caps (a default defaulting to its cap) and readOnly, apart from the rules', () => {
    const text =
      'queries:\n  - {graph: social, query: report, threadLimit: 4, memoryLimitMb: 2048, memoryLimitDefaultMb: 512}\n  - {graph: social, query: hello, readOnly: true}\n';
    expect(parseQueryPolicies(text)).toEqual([
      {
        graph: 'social',
        query: 'report',
        threads: { max: 4, default: 4 },
        memoryMb: { max: 2048, default: 512 },
        readOnly: false,
      },
      { graph: 'social', query: 'hello', readOnly: true },
    ]);
    expect(parsePolicy(text, DEFAULTS)).toEqual([]);
  });

  it.each([
    [
      'queries:\n  - {graph: social, query: hello, threadLimit: 2}\n  - {graph: social, query: hello, readOnly: true}\n',
      /queries: social\/hello is named twice/,
    ],
    [
      'queries: [{graph: social, query: hello, threadLimit: 2, threadLimitDefault: 3}]',
      /queries\.0: threadLimitDefault must be at most threadLimit/,
    ],
    ['queries: [{graph: social, query: hello, memoryLimitDefaultMb: 3}]', /memoryLimitDefaultMb needs memoryLimitMb/],
    ['queries: [{graph: social, query: hello, threadLimit: 0}]', /queries\.0\.threadLimit/],
    ['queries: [{graph: social, query: "he/llo"}]', /queries\.0\.query: must be a TigerGraph query name/],
    ['queries: [{graph: social, query: hello, readonly: true}]', /Unrecognized key/],
  ])('when queries: holds %j, then it is refused naming the problem', (text, message) => {
    expect(() => parseQueryPolicies(text)).toThrow(message);
  });
});
