import { loadConfig } from '../../../src/config.js';

describe('config generated session keys', () => {
  it('when session secrets and keys are missing outside production, then random ones are generated and named', () => {
    const a = loadConfig({});
    const b = loadConfig({});
    expect(a.generated).toEqual(['SESSION_SECRET', 'SESSION_ENCRYPTION_KEYS']);
    expect(a.session.secrets).toHaveLength(1);
    expect(a.session.secrets[0]?.length).toBeGreaterThanOrEqual(32);
    expect(a.session.encryptionKeys).toHaveLength(1);
    expect(a.session.encryptionKeys[0]?.key.length).toBe(32);
    expect(a.session.secrets[0]).not.toBe(b.session.secrets[0]);
    expect(a.session.encryptionKeys[0]?.key.equals(b.session.encryptionKeys[0]!.key)).toBe(false);
  });

  it('when only the secret is given, then only the encryption keys are reported as generated', () => {
    const config = loadConfig({ SESSION_SECRET: 's'.repeat(32) });
    expect(config.generated).toEqual(['SESSION_ENCRYPTION_KEYS']);
    expect(config.session.secrets).toEqual(['s'.repeat(32)]);
  });
});
