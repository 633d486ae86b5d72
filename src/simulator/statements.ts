import { gsqlDateString } from './dates.js';
import { maskSecret } from '@tigergraph-bff/client';
import type { Sim } from './sim-context.js';
import type { Principal } from './token-ops.js';

/**
 * Runs GSQL text (USE GRAPH, CREATE/SHOW/DROP SECRET) and returns the plain-text output. Shapes follow
 * §4.2 of the wire notes; sentences marked inferred are not confirmed against a real server.
 */
export function runStatements(sim: Sim, who: Principal, text: string): string {
  const graphBound = sim.version.era !== 'jwt'; // 4.1 unbound secrets from graphs
  let graph = who.secret?.graph;
  const out: string[] = [];
  const statements = text.split(/[\n;]/).map((s) => s.trim());
  statements.forEach((statement, index) => {
    if (statement === '' || statement.startsWith('#') || statement.startsWith('//')) return;
    const words = statement.split(/\s+/);
    const head = `${words[0]} ${words[1] ?? ''}`.toUpperCase();
    const arg = words
      .slice(2)
      .join(' ')
      .replace(/^["']|["']$/g, '');
    if (head === 'USE GRAPH') {
      if (sim.state.canUseGraph(who.user, arg)) {
        graph = arg;
        out.push(`Using graph '${arg}'`);
      } else {
        out.push(`Graph '${arg}' does not exist or you don't have privileges on it.`); // inferred
      }
    } else if (head === 'USE GLOBAL') {
      graph = undefined;
    } else if (head === 'CREATE SECRET') {
      out.push(createSecret(sim, who, graphBound ? graph : undefined, graphBound, arg));
    } else if (head === 'SHOW SECRET' || head === 'SHOW SECRETS') {
      out.push(...showSecrets(sim, who));
    } else if (head === 'DROP SECRET' || head === 'DROP SECRETS') {
      out.push(...dropSecrets(sim, who, arg));
    } else {
      out.push(`Line ${index + 1}: Syntax Error: unexpected "${words[0]}".`); // inferred
    }
  });
  return out.length === 0 ? '' : `${out.join('\n')}\n`;
}

function createSecret(sim: Sim, who: Principal, graph: string | undefined, graphBound: boolean, alias: string): string {
  if (graphBound && !graph) {
    return 'Semantic Check Fails: CREATE SECRET needs a graph, run USE GRAPH <graph_name> first.'; // inferred
  }
  try {
    const secret = sim.state.createSecret({
      user: who.user.name,
      ...(graph ? { graph } : {}),
      ...(alias ? { alias } : {}),
    });
    // "The secret: <value>" is what clients parse; the words after it are inferred.
    return `The secret: ${secret.value} has been created for user "${who.user.name}".`;
  } catch {
    return `The secret alias "${alias}" already exists for user "${who.user.name}".`; // inferred, keeps "already exists"
  }
}

/** Token lines (live tokens of the secret) sit between Secret and Alias, as in real 3.x output. */
function showSecrets(sim: Sim, who: Principal): string[] {
  const live = sim.state.liveTokens();
  const lines: string[] = [];
  for (const secret of sim.state.secretsOf(who.user.name)) {
    lines.push(`- Secret: ${maskSecret(secret.value)}`);
    for (const t of live)
      if (t.secret === secret.value) lines.push(`- Token: ${t.token} expire at: ${gsqlDateString(t.expiresAt)}`);
    lines.push(`- Alias: ${secret.alias}`);
    if (secret.graph) lines.push(`- GraphName: ${secret.graph}`);
  }
  return lines;
}

function dropSecrets(sim: Sim, who: Principal, arg: string): string[] {
  const names = arg
    .split(/[\s,]+/)
    .map((n) => n.replace(/^["']|["']$/g, ''))
    .filter(Boolean);
  const dropped: string[] = [];
  const missing: string[] = [];
  for (const name of names) {
    const secret = sim.state.findUserSecret(who.user.name, name);
    if (secret) {
      sim.state.dropSecret(secret);
      dropped.push(secret.alias);
    } else {
      missing.push(name);
    }
  }
  const lines: string[] = [];
  if (dropped.length > 0) lines.push(`Successfully dropped secrets: ${dropped.join(', ')}.`);
  // Inferred wording after "Failed to drop secrets"; masked so a mistyped full secret is not echoed.
  if (missing.length > 0 || names.length === 0) {
    lines.push(
      `Failed to drop secrets: ${missing.map((m) => (m.length > 16 ? maskSecret(m) : m)).join(', ') || '(none given)'} not found.`,
    );
  }
  return lines;
}
