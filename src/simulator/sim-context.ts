import type { IncomingMessage, ServerResponse } from 'node:http';
import type { DemoGraph } from './demo-graph.js';
import type { DetachedQueries } from './detached-registry.js';
import type { ExternalJwtVerifier } from './external-jwt.js';
import type { JwtSigner } from './jwt.js';
import type { Recorder } from './recorder.js';
import type { SimState } from './state.js';
import type { SeenRequest, SimulatorFaults } from './types.js';
import type { SimVersion } from './version.js';

/**
 * Who may use /__sim/: anyone who can connect (`open`: the simulator listens on loopback only and has no
 * key), holders of the key (`key`), or nobody (`off`: it listens beyond loopback without a key). The surface
 * hands out live tokens, creates secrets and injects faults, so on a network it must not be open.
 */
export type AdminAccess = { mode: 'open' } | { mode: 'key'; key: Buffer } | { mode: 'off'; host: string };

/** Everything the handlers of one simulator share. */
export interface Sim {
  version: SimVersion;
  state: SimState;
  jwt: JwtSigner;
  /** External JWT verification (3.10+ `Security.JWT.*`); undefined when not configured. */
  externalJwt: ExternalJwtVerifier | undefined;
  /** External JWTs dropped through revokeToken (TigerGraph's block list). */
  blockedJwts: Set<string>;
  /** The configured `Security.JWT.Issuer` / `Security.JWT.Audience`, quoted in refusals. */
  jwtIssuer: string | undefined;
  jwtAudience: string | undefined;
  recorder: Recorder;
  graphs: Map<string, DemoGraph>;
  authEnabled: boolean;
  authFailureStatus: 401 | 403;
  omitTokenExpiration: boolean;
  latencyMs: number;
  faults: SimulatorFaults;
  /** Releases of the data calls `holdData` is holding. */
  held: Set<() => void>;
  /** RESTPP's `version` object: {api, schema} on 3.x, with `edition` first on 4.x. */
  envelopeVersion: Record<string, unknown>;
  log: ((line: string) => void) | undefined;
  /** Who may use /__sim/ (admin-surface.ts). */
  adminAccess: AdminAccess;
  /** Installed queries run with GSQL-ASYNC (detached-queries.ts). */
  detached: DetachedQueries;
}

/** One request as the handlers see it. */
export interface SimRequest {
  req: IncomingMessage;
  res: ServerResponse;
  method: string;
  /** Without the /restpp prefix and without the query string. */
  path: string;
  query: URLSearchParams;
  rawQuery: string;
  body: Buffer;
  bodyText: string;
  /** The entry recorded for seen(); handlers fill in `auth`. */
  seen: SeenRequest;
}
