import { readFileSync } from 'node:fs';
import {
  capabilitiesOf,
  renderVersionTable,
  versionTableCells,
  VERSION_BANDS,
} from '../../../packages/client/src/capabilities.js';

const DOC = new URL('../../../docs/client-library.md', import.meta.url);

/** The cells of the table between the version-table markers, trimmed; the separator row left out. */
function docTableCells(): string[][] {
  const text = readFileSync(DOC, 'utf8');
  const block = /<!-- version-table:[^>]*-->\n([\s\S]*?)\n<!-- \/version-table -->/.exec(text)?.[1];
  if (block === undefined) throw new Error('docs/client-library.md has no version-table markers');
  return block
    .split('\n')
    .filter((line) => !/^\|\s*-+\s*\|/.test(line))
    .map((line) =>
      line
        .replace(/^\|/, '')
        .replace(/\|$/, '')
        .split(' | ')
        .map((cell) => cell.trim()),
    );
}

describe('TigerGraph capabilities (one table)', () => {
  it('when docs/client-library.md is read, then its version table is the one capabilitiesOf computes', () => {
    // On failure: paste renderVersionTable() between the markers.
    expect({ doc: docTableCells(), hint: 'paste renderVersionTable()' }).toEqual({
      doc: versionTableCells(),
      hint: 'paste renderVersionTable()',
    });
    expect(renderVersionTable().split('\n')).toHaveLength(versionTableCells().length + 1);
  });

  it.each([
    ['3.4.0', 'query', 'restpp', false],
    ['3.5.0', 'json', 'restpp', false],
    ['4.0.2', 'json', 'restpp', false],
    ['4.1.0', 'jwt', 'gsql', true],
    ['4.2.1', 'jwt', 'gsql', true],
    ['5.0', 'jwt', 'gsql', true],
  ] as const)(
    'when the version is %s, then era %s, tokens from %s, /restpp under admin: %s',
    (v, era, endpoint, under) => {
      const caps = capabilitiesOf(v);
      expect([caps.era, caps.tokenEndpoint, caps.restppUnderAdmin]).toEqual([era, endpoint, under]);
    },
  );

  it('when the boundaries are crossed, then each fact flips at its documented version', () => {
    const flips = (fact: (c: ReturnType<typeof capabilitiesOf>) => unknown, before: string, at: string) =>
      expect(fact(capabilitiesOf(before))).not.toEqual(fact(capabilitiesOf(at)));
    flips((c) => c.getTokenReturnsTriple, '3.5.9', '3.6.0');
    flips((c) => c.expirationMayBeOmitted, '3.5.9', '3.6.0');
    flips((c) => c.externalJwt, '3.9.9', '3.10.0');
    flips((c) => c.gsqlStatements, '3.11.9', '4.0.0');
    flips((c) => c.refreshOnWire, '4.0.9', '4.1.0');
    flips((c) => c.graphWithSecret, '3.4.9', '3.5.0');
  });

  it('when a version string is odd but carries a number, then it is read as the rest of the client reads it', () => {
    expect(capabilitiesOf('release_4.1.2_01-02-2024').era).toBe('jwt');
    expect(() => capabilitiesOf('banana')).toThrow(/Unrecognised TigerGraph version/);
  });

  it('when each band is computed, then its sample lies in the band its label names', () => {
    expect(VERSION_BANDS.map((b) => b.label)).toEqual(['≤ 3.4', '3.5', '3.6 – 3.9', '3.10 – 3.11', '4.0', '4.1+']);
  });
});
