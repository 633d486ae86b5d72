/** A tiny in-memory property graph: people and (undirected) friendships. */
export interface VertexOut {
  v_id: string;
  v_type: string;
  attributes: Record<string, unknown>;
}

export interface EdgeOut {
  e_type: string;
  directed: boolean;
  from_id: string;
  from_type: string;
  to_id: string;
  to_type: string;
  attributes: Record<string, unknown>;
}

const PEOPLE: Array<[string, string, number, string]> = [
  ['alice', 'Alice', 34, 'Lisbon'],
  ['bob', 'Bob', 29, 'Porto'],
  ['carol', 'Carol', 41, 'Lisbon'],
  ['dan', 'Dan', 25, 'Braga'],
  ['eve', 'Eve', 38, 'Porto'],
  ['frank', 'Frank', 52, 'Faro'],
  ['grace', 'Grace', 31, 'Lisbon'],
  ['heidi', 'Heidi', 27, 'Coimbra'],
];

const FRIENDSHIPS: Array<[string, string, number]> = [
  ['alice', 'bob', 2015],
  ['alice', 'carol', 2010],
  ['bob', 'dan', 2019],
  ['carol', 'eve', 2012],
  ['dan', 'eve', 2020],
  ['eve', 'frank', 2008],
  ['grace', 'alice', 2021],
  ['heidi', 'grace', 2022],
];

export class DemoGraph {
  readonly vertexTypes: readonly string[] = ['Person'];
  readonly edgeTypes: readonly string[] = ['Friend'];
  private readonly people = new Map<string, Record<string, unknown>>();
  private readonly friends = new Map<string, Map<string, Record<string, unknown>>>();

  upsertVertex(type: string, id: string, attributes: Record<string, unknown>): boolean {
    if (type !== 'Person' || !id) return false;
    this.people.set(id, { ...(this.people.get(id) ?? { name: '', age: 0, city: '' }), ...attributes });
    return true;
  }

  /** Friendships are undirected, so both ends see the edge. */
  upsertEdge(
    fromType: string,
    fromId: string,
    type: string,
    toType: string,
    toId: string,
    attributes: Record<string, unknown>,
  ): boolean {
    if (type !== 'Friend' || fromType !== 'Person' || toType !== 'Person') return false;
    if (!this.people.has(fromId) || !this.people.has(toId)) return false;
    const attrs = { since: 0, ...this.friends.get(fromId)?.get(toId), ...attributes };
    this.side(fromId).set(toId, attrs);
    this.side(toId).set(fromId, attrs);
    return true;
  }

  vertex(type: string, id: string): VertexOut | undefined {
    const attributes = type === 'Person' ? this.people.get(id) : undefined;
    return attributes ? { v_id: id, v_type: type, attributes } : undefined;
  }

  vertices(type: string, limit = Infinity): VertexOut[] {
    if (type !== 'Person') return [];
    const out: VertexOut[] = [];
    for (const [id, attributes] of this.people) {
      if (out.length >= limit) break;
      out.push({ v_id: id, v_type: type, attributes });
    }
    return out;
  }

  friendsOf(id: string): VertexOut[] {
    return [...(this.friends.get(id)?.keys() ?? [])].map((f) => this.vertex('Person', f)!);
  }

  friendEdges(id: string): EdgeOut[] {
    return [...(this.friends.get(id)?.entries() ?? [])].map(([to, attributes]) => ({
      e_type: 'Friend',
      directed: false,
      from_id: id,
      from_type: 'Person',
      to_id: to,
      to_type: 'Person',
      attributes,
    }));
  }

  vertexCount(): number {
    return this.people.size;
  }

  edgeCount(): number {
    let ends = 0;
    for (const side of this.friends.values()) ends += side.size;
    return ends / 2;
  }

  private side(id: string): Map<string, Record<string, unknown>> {
    let side = this.friends.get(id);
    if (!side) this.friends.set(id, (side = new Map<string, Record<string, unknown>>()));
    return side;
  }
}

/** `social` starts with the demo people; other graphs share the schema and start empty. */
export function createDemoGraph(withData: boolean): DemoGraph {
  const graph = new DemoGraph();
  if (!withData) return graph;
  for (const [id, name, age, city] of PEOPLE) graph.upsertVertex('Person', id, { name, age, city });
  for (const [a, b, since] of FRIENDSHIPS) graph.upsertEdge('Person', a, 'Friend', 'Person', b, { since });
  return graph;
}
