/** A vertex of a type named at run time (a query's untyped `VERTEX` parameter). */
export interface VertexRef {
  id: string;
  type: string;
}

export type ParamValue = string | number | boolean | VertexRef;
export type QueryParams = Record<string, ParamValue | readonly ParamValue[] | undefined>;

const isVertex = (v: ParamValue): v is VertexRef => typeof v === 'object' && v !== null;

/**
 * RESTPP's query-string form: a collection repeats its name (`p=1&p=2`), an untyped vertex gives its type
 * beside its id (`p=v1&p.type=Person`, or `p[0]=v1&p[0].type=Person` in a collection); undefined is left out.
 */
export function queryString(params: QueryParams): string {
  const out = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) {
    if (value === undefined) continue;
    if (Array.isArray(value)) {
      (value as readonly ParamValue[]).forEach((item, i) => {
        if (isVertex(item)) {
          out.append(`${name}[${i}]`, item.id);
          out.append(`${name}[${i}].type`, item.type);
        } else out.append(name, String(item));
      });
    } else if (isVertex(value as ParamValue)) {
      out.append(name, (value as VertexRef).id);
      out.append(`${name}.type`, (value as VertexRef).type);
    } else out.append(name, String(value));
  }
  return out.toString();
}
