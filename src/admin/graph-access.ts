import type { GsqlClient } from '../tigergraph/gsql-client.js';
import type { AdminCredentials } from '../tigergraph/types.js';
import { forbiddenGraph, mapAdminError } from './admin-errors.js';

/**
 * Makes sure `creds` may use `graph` before anything is created there. The admin server answers a
 * refused USE GRAPH with HTTP 200 and prose, and a 3.x CREATE SECRET after it then fails in ways that
 * look like any unreadable answer; so the check looks for the one line a granted USE GRAPH prints
 * ("Using graph 'G'", as in real SHOW SECRET output) rather than for wording of a refusal.
 */
export async function checkGraphAccess(gsql: GsqlClient, creds: AdminCredentials, graph: string): Promise<void> {
  let output: string;
  try {
    output = await gsql.runGsql(creds, `USE GRAPH ${graph}`);
  } catch (err) {
    throw mapAdminError(err);
  }
  const used = /^\s*Using graph '([^']*)'/m.exec(output)?.[1];
  if (used !== graph) throw forbiddenGraph();
}
