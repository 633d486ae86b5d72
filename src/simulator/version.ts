import type { WireEra } from '@tigergraph-bff/client';

/**
 * The parts of a TigerGraph version string the simulator's behaviour depends on. This is a deliberate second
 * copy of the version rules in packages/client/src/capabilities.ts, written from the same public facts but not
 * imported: the simulator is how the client is tested, so a wrong rule there must not be agreed with here.
 */
export interface SimVersion {
  text: string;
  major: number;
  minor: number;
  era: WireEra;
  /** 4.x: RESTPP envelopes carry `edition`, GSQL lifetimes may be milliseconds. */
  v4: boolean;
  /** 3.6+: POST token answers may leave out `expiration`. */
  atLeast36: boolean;
  /** 3.10+: RESTPP can verify external JWTs (`Security.JWT.*`). */
  atLeast310: boolean;
}

export function parseVersion(text: string): SimVersion {
  const match = /^(\d+)\.(\d+)(?:\.(\d+))?$/.exec(text.trim());
  if (!match) throw new Error(`Unsupported TigerGraph version "${text}" (expected e.g. 3.9.3 or 4.1.0)`);
  const major = Number(match[1]);
  const minor = Number(match[2]);
  const era: WireEra =
    major < 3 || (major === 3 && minor < 5) ? 'query' : major > 4 || (major === 4 && minor >= 1) ? 'jwt' : 'json';
  return {
    text: text.trim(),
    major,
    minor,
    era,
    v4: major >= 4,
    atLeast36: major > 3 || (major === 3 && minor >= 6),
    atLeast310: major > 3 || (major === 3 && minor >= 10),
  };
}
