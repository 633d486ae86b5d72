import { readFileSync } from 'node:fs';
import { CONFIG_KEYS, loadConfig } from '../../../src/config.js';

const example = readFileSync(new URL('../../../.env.example', import.meta.url), 'utf8').split('\n');
const entries = example.filter((l) => /^[A-Z][A-Z0-9_]*=/.test(l)).map((l) => l.split('=', 2) as [string, string]);

describe('.env.example', () => {
  it('when compared with the keys the config reads, then it lists each exactly once', () => {
    const listed = entries.map(([k]) => k);
    expect([...listed].sort()).toEqual([...CONFIG_KEYS].sort());
    expect(new Set(listed).size).toBe(listed.length);
  });

  it('when read, then every key has a comment line directly above it', () => {
    for (const [key] of entries) {
      const index = example.findIndex((l) => l.startsWith(`${key}=`));
      expect([key, example[index - 1]?.startsWith('# ')]).toEqual([key, true]);
    }
  });

  it('when copied as is, then it loads and leaves every secret blank', () => {
    const config = loadConfig(Object.fromEntries(entries));
    expect(config.generated).toEqual(['SESSION_SECRET', 'SESSION_ENCRYPTION_KEYS']);
    for (const [key, value] of entries) {
      if (/SECRET|_PASSWORD$|KEYS/.test(key)) expect([key, value]).toEqual([key, '']);
    }
  });
});
