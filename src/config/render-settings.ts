import { CONFIG_KEYS, configDefault, type ConfigKey } from '../config.js';
import { SETTING_DOCS, SETTING_SECTIONS, type SectionId } from './setting-docs.js';

// .env.example and docs/configuration.md, rendered from the parsers (defaults) and SETTING_DOCS (words),
// so neither can drift from what the service reads. Written by `npm run docs:config`; a test compares.

const ENV_HEADER = [
  '# tigergraph-bff configuration, generated from src/config.ts by `npm run docs:config` (do not edit by hand).',
  '# Copy to .env and fill in: the service reads .env from its working directory at start-up, and variables',
  '# already set in the real environment win over it. A blank value means "not set".',
  '# Every value is validated at start-up; a bad or missing one stops the start naming the key.',
  '# Booleans accept true/false, 1/0, yes/no. Durations are in seconds unless the name ends in _MS.',
];
const WIDTH = 110;

export function defaultText(key: ConfigKey): string {
  const doc = SETTING_DOCS[key];
  const base = doc.defaultText ?? plain(configDefault(key), 'unset');
  return doc.defaultNote === undefined ? base : `${base} (${doc.defaultNote})`;
}

/** The value .env.example shows: the parsed default, blank when it is computed at start-up or unset. */
function exampleValue(key: ConfigKey): string {
  return SETTING_DOCS[key].defaultText === undefined ? plain(configDefault(key), '') : '';
}

function plain(value: unknown, none: string): string {
  if (value === undefined) return none;
  if (Array.isArray(value)) return value.length === 0 ? (none === '' ? '' : 'none') : value.join(',');
  return String(value);
}

function keysOf(section: SectionId): ConfigKey[] {
  return CONFIG_KEYS.filter((key) => SETTING_DOCS[key].section === section);
}

function wrapComment(text: string): string[] {
  const lines: string[] = [];
  let line = '#';
  for (const word of text.split(/\s+/)) {
    if (line.length + 1 + word.length > WIDTH && line !== '#') {
      lines.push(line);
      line = '#';
    }
    line += ` ${word}`;
  }
  lines.push(line);
  return lines;
}

export function renderEnvExample(): string {
  const out = [...ENV_HEADER];
  for (const [id, section] of Object.entries(SETTING_SECTIONS) as Array<
    [SectionId, (typeof SETTING_SECTIONS)[SectionId]]
  >) {
    const title = `# --- ${section.title} `;
    out.push('', title.padEnd(93, '-'));
    if (section.intro) out.push(...wrapComment(`(${section.intro})`));
    for (const key of keysOf(id)) {
      out.push(...wrapComment(`${SETTING_DOCS[key].doc} Default: ${defaultText(key)}.`), `${key}=${exampleValue(key)}`);
    }
  }
  return `${out.join('\n')}\n`;
}

const cell = (text: string) => text.replace(/\|/g, '\\|');

export function renderSettingsMarkdown(): string {
  const out = [
    '# Configuration',
    '',
    '<!-- Generated from src/config.ts and src/config/setting-docs.ts by `npm run docs:config`; do not edit by hand. -->',
    '',
    'At the end of this page you know every setting, its default, and what a bad value does at start-up.',
    '',
    'Every setting is an environment variable (or a line in `.env` in the working directory; the real environment',
    'wins). Each is validated once at start-up, and a bad or missing value stops the start with a message naming',
    'the key. In production (`NODE_ENV=production`) `TG_RESTPP_URL`, a Redis mode, `SESSION_SECRET` and',
    '`SESSION_ENCRYPTION_KEYS` are required. [.env.example](../.env.example) has the same list as a file to copy.',
    'A variable that is not a setting but nearly spells one (`TRUST_PROXI`, `allowed_origins`) is ignored, with a',
    'start-up warning naming the setting it resembles.',
  ];
  for (const [id, section] of Object.entries(SETTING_SECTIONS) as Array<
    [SectionId, (typeof SETTING_SECTIONS)[SectionId]]
  >) {
    out.push('', `## ${section.title}`, '');
    if (section.intro) out.push(`${section.intro[0]!.toUpperCase()}${section.intro.slice(1)}.`, '');
    out.push('| Key | Default | What it does |', '|---|---|---|');
    for (const key of keysOf(id))
      out.push(`| \`${key}\` | ${cell(defaultText(key))} | ${cell(SETTING_DOCS[key].doc)} |`);
  }
  return `${out.join('\n')}\n`;
}
