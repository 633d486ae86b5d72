/**
 * Does a 401/403 from the data server say our token itself is dead (so a new one may help), or that
 * the token is fine but may not do this (so a new token from the same secret would be refused too)?
 *
 * RESTPP shares REST-10016 between both: "…input token = 'x****y' is invalid." and
 * "…input token = 'x****y' has no access to graph 'g'." (docs/tigergraph-wire.md §5, §6). So: the code
 * decides first (REST-10018 rejected and REST-10019 expired are always about the token; other codes
 * never are), and only within REST-10016 does the message's reason decide. Anything naming a graph,
 * privilege or permission is about scope, which a re-mint cannot change. A 401 with no readable code
 * keeps the old rule (RESTPP answers 401 only for tokens); a 403 with none is a refusal to pass on.
 */
const ALWAYS_TOKEN = new Set(['REST-10018', 'REST-10019']);
const SHARED_CODE = 'REST-10016';
const SCOPE_REASON = /\b(graph|privilege|permission)\b/i;

interface RefusalBody {
  code?: unknown;
  message?: unknown;
}

function parse(body: Buffer): RefusalBody | null {
  try {
    const value: unknown = JSON.parse(body.toString('utf8'));
    return typeof value === 'object' && value !== null ? (value as RefusalBody) : null;
  } catch {
    return null;
  }
}

export function refusesToken(statusCode: number, body: Buffer): boolean {
  const parsed = parse(body);
  const code = typeof parsed?.code === 'string' ? parsed.code : undefined;
  if (code === undefined) return statusCode === 401;
  if (ALWAYS_TOKEN.has(code)) return true;
  if (code !== SHARED_CODE) return false;
  const message = typeof parsed?.message === 'string' ? parsed.message : '';
  return !SCOPE_REASON.test(message);
}
