/** `/version` text in RESTPP's layout; pyTigerGraph skips 3 header lines and reads `_x.y.z_` on `product`. */
export function versionMessage(version: string): string {
  const build = `release_${version}_01-15-2024  4b2e9c1d7a0f3e6b5c8d9e0f1a2b3c4d5e6f7a8b  2024-01-15 10:00:00 -0800`;
  const components = ['product', 'cqrs', 'gle', 'gsql', 'gui', 'restpp', 'gpe', 'gse'];
  const lines = components.map((c) => `${c.padEnd(17)}${build}`);
  return `TigerGraph RESTPP:\n --- Version --- \nTigerGraph version: ${version}\n${lines.join('\n')}\n`;
}

const ENDPOINTS: Record<string, string[]> = {
  'GET /echo': ['sleep'],
  'POST /echo': ['sleep'],
  'GET /version': [],
  'GET /endpoints': ['builtin', 'dynamic', 'static'],
  'GET /graph/{graph_name}/vertices/{vertex_type}': ['limit', 'count_only', 'select', 'filter', 'sort'],
  'GET /graph/{graph_name}/vertices/{vertex_type}/{vertex_id}': ['select'],
  'POST /graph/{graph_name}': [],
  'POST /builtins/{graph_name}': ['function', 'type'],
  'GET /query/{graph_name}/hello': ['name'],
  'GET /query/{graph_name}/friends': ['person'],
  'GET /query/{graph_name}/stream': ['chunks', 'delayMs', 'chunkBytes'],
  'POST /requesttoken': ['secret', 'lifetime', 'graph'],
  'PUT /requesttoken': ['secret', 'token', 'lifetime'],
  'DELETE /requesttoken': ['secret', 'token'],
};

/** `/endpoints`: each endpoint with its parameters, roughly as RESTPP lists them. */
export function endpointsListing(): Record<string, { parameters: Record<string, { type: string }> }> {
  return Object.fromEntries(
    Object.entries(ENDPOINTS).map(([key, params]) => [
      key,
      { parameters: Object.fromEntries(params.map((p) => [p, { type: 'STRING' }])) },
    ]),
  );
}
