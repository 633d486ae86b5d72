import { type GsqlClient, requireGraphUsed, type AdminCredentials } from '@tigergraph-bff/client';
import { mapAdminError } from './admin-errors.js';

/**
 * Makes sure `creds` may use `graph` before anything is created there. The admin server answers a
 * refused USE GRAPH with HTTP 200 and prose, and a 3.x CREATE SECRET after it then fails in ways that
 * look like any unreadable answer; so the client library checks for the line a granted USE GRAPH prints
 * (`requireGraphUsed`), and a refusal is 403 forbidden here.
 */
export async function checkGraphAccess(gsql: GsqlClient, creds: AdminCredentials, graph: string): Promise<void> {
  try {
    requireGraphUsed(await gsql.runGsql(creds, `USE GRAPH ${graph}`), graph);
  } catch (err) {
    throw mapAdminError(err);
  }
}
