import { describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { messagesOf, startOutcome } from '../../helpers/start-outcome.js';

/**
 * A production start refused for a missing setting names the near miss that was probably meant (issue 43,
 * item 4): the operator typed `REDIS_ULR`, and the fatal line says so, never the value.
 */
describe('a refused start and the near miss that caused it', () => {
  const production = {
    NODE_ENV: 'production',
    TG_RESTPP_URL: 'http://127.0.0.1:9',
    SESSION_SECRET: randomBytes(36).toString('base64url'),
    SESSION_ENCRYPTION_KEYS: `k1:${randomBytes(32).toString('base64')}`,
  };

  it('when a required setting is missing and a swapped-letter twin is set, then the fatal line names the twin', async () => {
    const value = 'redis://127.0.0.1:6379/7';
    const run = await startOutcome({ ...production, REDIS_ULR: value });
    expect(run.code).toBe(1);
    const said = messagesOf(run.output);
    expect(said).toContain('REDIS_URL');
    expect(said).toContain('REDIS_ULR is set, which is not a setting: did you mean REDIS_URL?');
    expect(run.output).not.toContain(value);
  });

  it('when required settings are missing and their twins have a letter dropped or doubled, then the fatal line names each', async () => {
    const { SESSION_SECRET: secret, ...withoutSecret } = production;
    const run = await startOutcome({ ...withoutSecret, REDS_URL: 'redis://127.0.0.1:6379/7', SESSION_SECRETT: secret });
    expect(run.code).toBe(1);
    const said = messagesOf(run.output);
    expect(said).toContain('REDS_URL is set, which is not a setting: did you mean REDIS_URL?');
    expect(said).toContain('SESSION_SECRETT is set, which is not a setting: did you mean SESSION_SECRET?');
    expect(run.output).not.toContain(secret);
  });

  it('when no Redis mode is set and a near miss of another mode is, then the fatal line names that one', async () => {
    const run = await startOutcome({ ...production, REDIS_SENTINEL: '127.0.0.1:26379' });
    expect(run.code).toBe(1);
    expect(messagesOf(run.output)).toContain(
      'REDIS_SENTINEL is set, which is not a setting: did you mean REDIS_SENTINELS?',
    );
  });

  it('when a required setting is missing and no twin is set, then no near miss is suggested', async () => {
    const run = await startOutcome({ ...production });
    expect(run.code).toBe(1);
    expect(messagesOf(run.output)).not.toContain('did you mean');
  });
});
