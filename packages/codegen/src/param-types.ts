/**
 * A query parameter as `GET /endpoints` describes it, mapped to a TypeScript type for the browser SDK.
 *
 * Two spellings reach us. The simulator lists the GSQL declaration (`{"type":"VERTEX<Person>"}`,
 * `"SET<INT>"`). TigerGraph's RESTPP lists its own view (built-in-endpoints docs, "List all endpoints"):
 * `type` is the wire type (`INT64`, `UINT64`, `DOUBLE`, `STRING`, `BOOL`, `DATETIME`…), a vertex is
 * `{"type":"STRING","is_id":"true","id_type":"Person"}` (no `id_type` for an untyped `VERTEX`, which then
 * also lists `<name>.type`), a collection has `max_count` above 1, and `min_count` 0 marks it optional.
 * Both are read here; anything else maps to the SDK's `ParamValue` with the original type in a comment.
 */
export interface ParamSpec {
  type?: unknown;
  is_id?: unknown;
  id_type?: unknown;
  min_count?: unknown;
  max_count?: unknown;
  default?: unknown;
}

export interface MappedParam {
  /** A TypeScript type over the SDK's names (`VertexRef`, `ParamValue`). */
  ts: string;
  optional: boolean;
  /** What TigerGraph called it, for the generated comment (already made safe for a comment). */
  source: string;
  /** The SDK type names the module must import. */
  uses: ReadonlySet<'VertexRef' | 'ParamValue'>;
}

const NUMBER = /^(U?INT(8|16|32|64)?|FLOAT|DOUBLE|REAL)$/;

/** The scalar's TS type, or undefined when it is not one we know. */
function scalar(type: string): string | undefined {
  if (NUMBER.test(type)) return 'number';
  if (type === 'STRING' || type === 'STRING COMPRESS') return 'string';
  if (type === 'BOOL' || type === 'BOOLEAN') return 'boolean';
  // TigerGraph reads "YYYY-MM-DD HH:MM:SS" (or an epoch number); sent as written.
  if (type === 'DATETIME') return 'string';
  return undefined;
}

/** `VERTEX<Person>` → an id of a Person (a string); `VERTEX` → `{ id, type }`. */
function element(type: string, uses: Set<'VertexRef' | 'ParamValue'>): string {
  if (/^VERTEX\s*<\s*\w+\s*>$/.test(type)) return 'string';
  if (type === 'VERTEX') {
    uses.add('VertexRef');
    return 'VertexRef';
  }
  const known = scalar(type);
  if (known) return known;
  uses.add('ParamValue');
  return 'ParamValue';
}

/** A comment-safe rendering of what the listing said (it is the data server's text, not ours). */
export const commentSafe = (text: string): string =>
  text
    .replace(/\*\//g, '* /')
    .replace(/[\r\n\u2028\u2029]/g, ' ')
    .slice(0, 200);

export function mapParam(spec: ParamSpec | null | undefined): MappedParam {
  const uses = new Set<'VertexRef' | 'ParamValue'>();
  const raw = typeof spec?.type === 'string' ? spec.type.trim() : '';
  const upper = raw.toUpperCase();
  const minCount = Number(spec?.min_count);
  const maxCount = Number(spec?.max_count);
  const optional = !(minCount >= 1) || spec?.default !== undefined;
  // The GSQL spelling: SET<…>, LIST<…>, BAG<…>.
  const collection = /^(SET|LIST|BAG)\s*<\s*(.+?)\s*>$/.exec(upper);
  if (collection) {
    return { ts: `readonly ${element(collection[2]!, uses)}[]`, optional, source: commentSafe(raw), uses };
  }
  // RESTPP's spelling: a vertex id, maybe of a named type; a collection when more than one may come.
  const isId = spec?.is_id === true || spec?.is_id === 'true';
  const idType = typeof spec?.id_type === 'string' ? spec.id_type : undefined;
  const one = isId ? (idType ? 'string' : element('VERTEX', uses)) : element(upper, uses);
  const many = Number.isFinite(maxCount) && maxCount > 1;
  const source = isId ? `VERTEX${idType ? `<${commentSafe(idType)}>` : ''}` : commentSafe(raw || 'untyped');
  return { ts: many ? `readonly ${one}[]` : one, optional, source: many ? `collection of ${source}` : source, uses };
}
