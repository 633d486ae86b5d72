import { loadConfig } from '../../../src/config.js';

describe('config immutability', () => {
  it('when a caller tries to change the config, then nested objects and arrays refuse', () => {
    const config = loadConfig({ ALLOWED_ORIGINS: 'https://a.example.com', REDIS_URL: 'redis://127.0.0.1:6379' });
    expect(Object.isFrozen(config)).toBe(true);
    expect(Object.isFrozen(config.tigergraph)).toBe(true);
    expect(Object.isFrozen(config.redis)).toBe(true);
    expect(Object.isFrozen(config.session)).toBe(true);
    expect(Object.isFrozen(config.session.secrets)).toBe(true);
    expect(Object.isFrozen(config.session.encryptionKeys[0])).toBe(true);
    expect(() => {
      (config as { port: number }).port = 1;
    }).toThrow(TypeError);
    expect(() => (config.allowedOrigins as string[]).push('https://evil.example.com')).toThrow(TypeError);
    expect(config.allowedOrigins).toEqual(['https://a.example.com']);
  });
});
