import { readFileSync } from 'node:fs';
import { CONFIG_KEYS } from '../../../src/config.js';
import { defaultText, renderEnvExample, renderSettingsMarkdown } from '../../../src/config/render-settings.js';
import { SETTING_DOCS } from '../../../src/config/setting-docs.js';

const read = (file: string) => readFileSync(new URL(`../../../${file}`, import.meta.url), 'utf8');

describe('the generated settings docs', () => {
  it('when .env.example is compared with what the config renders, then they are the same (else run npm run docs:config)', () => {
    expect(read('.env.example')).toBe(renderEnvExample());
  });

  it('when docs/configuration.md is compared with what the config renders, then they are the same (else run npm run docs:config)', () => {
    expect(read('docs/configuration.md')).toBe(renderSettingsMarkdown());
  });

  it("when the docs name a default, then it is the parser's own default", () => {
    expect(defaultText('PORT')).toBe('8080');
    expect(defaultText('ALLOWED_ORIGINS')).toBe('none');
    expect(defaultText('TG_RESTPP_URL')).toBe('unset');
    expect(renderSettingsMarkdown()).toContain('| `MAX_BODY_BYTES` | 1048576 |');
  });

  it('when a key is read by the config, then it is documented, and nothing else is', () => {
    expect(Object.keys(SETTING_DOCS).sort()).toEqual([...CONFIG_KEYS].sort());
    for (const key of CONFIG_KEYS) expect(SETTING_DOCS[key].doc.length).toBeGreaterThan(10);
  });
});
