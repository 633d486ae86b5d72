import { randomBytes } from 'node:crypto';
import { startOutcome } from '../../helpers/start-outcome.js';

/**
 * Issue 21, item 6: "production" means production. Each case starts the real service (dist/main.js) and
 * expects it to refuse, naming every bad key at once and no value; a start that listens fails the test.
 */
const GOOD_SECRET = randomBytes(36).toString('base64url');
const GOOD_KEY = `k1:${randomBytes(32).toString('base64')}`;
const PRODUCTION = {
  NODE_ENV: 'production',
  TG_RESTPP_URL: 'http://127.0.0.1:9', // never called: the start is refused before
  REDIS_URL: 'redis://127.0.0.1:6379',
  REDIS_PREFIX: `tgbff-test:prod-start:${randomBytes(4).toString('hex')}:`,
};

describe('production means production (real process starts)', () => {
  it.each(['Production', 'prod', 'PRODUCTION', 'staging'])(
    'when NODE_ENV=%s, then the start is refused naming the accepted values (no simulator, no memory store, no generated keys)',
    async (value) => {
      const run = await startOutcome({ NODE_ENV: value });
      expect(run.listened).toBe(false);
      expect(run.code).toBe(1);
      expect(run.output).toContain('NODE_ENV: must be one of development, production, test (exactly, lower case)');
      expect(run.output).not.toContain('simulator');
    },
  );

  it('when production has a one-character SESSION_SECRET, an all-zero key, a repeated-byte key and TRUST_PROXY=true, then every bad key is named at once and no value', async () => {
    const weakSecret = 'p'.repeat(48);
    const zeroKey = Buffer.alloc(32).toString('base64');
    const sameByte = Buffer.alloc(32, 0x41).toString('base64');
    const run = await startOutcome({
      ...PRODUCTION,
      SESSION_SECRET: weakSecret,
      SESSION_ENCRYPTION_KEYS: `a:${zeroKey},b:${sameByte}`,
      TRUST_PROXY: 'true',
    });
    expect(run.listened).toBe(false);
    expect(run.code).toBe(1);
    expect(run.said).toContain(
      'SESSION_SECRET: secret 1 is too weak for production: it is one character repeated; make one with: openssl rand -base64 48',
    );
    expect(run.said).toContain('SESSION_ENCRYPTION_KEYS: key "a" is too weak for production: it is one byte repeated');
    expect(run.said).toContain('SESSION_ENCRYPTION_KEYS: key "b" is too weak for production: it is one byte repeated');
    expect(run.said).toMatch(
      /TRUST_PROXY: must not be true in production: .*name your proxies instead, by address or subnet \(e\.g\. TRUST_PROXY=10\.0\.0\.0\/8\) or by count \(e\.g\. TRUST_PROXY=1\)/,
    );
    for (const value of [weakSecret, zeroKey, sameByte, 'AAAAAAAA']) expect(run.output).not.toContain(value);
  });

  it('when production has a low-entropy SESSION_SECRET of 40 characters, then it is refused', async () => {
    const run = await startOutcome({
      ...PRODUCTION,
      SESSION_SECRET: 'abababababababababababababababab12345678',
      SESSION_ENCRYPTION_KEYS: GOOD_KEY,
    });
    expect(run.listened).toBe(false);
    expect(run.said).toContain(
      'SESSION_SECRET: secret 1 is too weak for production: its estimated entropy is below 96 bits',
    );
  });

  it('when production has strong keys and names its proxy by count, then it starts', async () => {
    const run = await startOutcome({
      ...PRODUCTION,
      SESSION_SECRET: GOOD_SECRET,
      SESSION_ENCRYPTION_KEYS: GOOD_KEY,
      TRUST_PROXY: '1',
    });
    expect(run.listened).toBe(true);
  });
});
