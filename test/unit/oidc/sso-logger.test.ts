import { PassThrough } from 'node:stream';
import { createLogger, ssoLogger } from '../../../src/observability/logger.js';

function capture() {
  const sink = new PassThrough();
  let text = '';
  sink.on('data', (chunk: Buffer) => (text += chunk.toString()));
  return { logger: createLogger({ level: 'debug', destination: sink }), text: () => text };
}

describe('the single sign-on logger', () => {
  test('when the SSO parts log an IdP answer or settings, then the IdP credential names are censored at the top and one level down, and the service-wide names still are', async () => {
    const { logger, text } = capture();
    const log = ssoLogger(logger);
    log.warn(
      {
        access_token: 'AT-must-not-appear',
        refresh_token: 'RT-must-not-appear',
        id_token: 'IDT-must-not-appear',
        clientSecret: 'CS-must-not-appear',
        answer: {
          access_token: 'AT2-must-not-appear',
          refresh_token: 'RT2-must-not-appear',
          id_token: 'IDT2-must-not-appear',
        },
        settings: { clientSecret: 'CS2-must-not-appear', issuer: 'https://idp.example' },
        token: 'T-must-not-appear',
        nested: { secret: 'S-must-not-appear' },
      },
      'idp answer',
    );
    await new Promise((r) => setImmediate(r));
    expect(text()).toContain('idp answer');
    expect(text()).toContain('https://idp.example');
    expect(text()).not.toMatch(/must-not-appear/);
  });
});
