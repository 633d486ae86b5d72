import { AppError } from '../../errors.js';

export interface SecretLogin {
  secret: string;
  graph: string | null;
}

const GRAPH_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;

const invalid = (message: string) => new AppError(400, 'invalid_request', message);

/** Validates `{"secret": "...", "graph"?: "..."}`; errors name the field, never echo its value. */
export function parseLoginBody(body: unknown): SecretLogin {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw invalid('Body must be a JSON object with a "secret" field');
  }
  const { secret, graph } = body as Record<string, unknown>;
  if (typeof secret !== 'string' || secret.length === 0) throw invalid('"secret" must be a non-empty string');
  if (secret.length > 512) throw invalid('"secret" is too long');
  if (graph !== undefined && graph !== null && (typeof graph !== 'string' || !GRAPH_NAME.test(graph))) {
    throw invalid('"graph" must be a graph name');
  }
  return { secret, graph: typeof graph === 'string' ? graph : null };
}
