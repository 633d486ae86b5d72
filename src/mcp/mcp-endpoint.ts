import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { McpConfig } from '../config/mcp.js';
import type { CredentialIds } from '../crypto/credential-id.js';
import { AppError } from '../errors.js';
import type { Audit } from '../observability/audit.js';
import type { Logger } from '../observability/logger.js';
import type { Idp } from '../oidc/idp.js';
import type { MappedSessions } from '../oidc/mapped-sessions.js';
import type { UserQuota } from '../quota/user-quota.js';
import { readRequestBody } from '../relay/body-prefix.js';
import type { ForwardedFor } from '../relay/header-policy.js';
import type { Relay } from '../relay/relay.js';
import type { AllowRule } from '../relay/allowlist.js';
import type { RedisClient } from '../store/redis/client.js';
import { bearerOf, challenge, createBearerVerifier } from './bearer.js';
import { answerMcp } from './mcp-server.js';
import { memoryMcpSessions, redisMcpSessions, type McpSessions } from './mcp-sessions.js';
import { METADATA_PATH } from './paths.js';
import { personAccess } from './person-access.js';
import { createToolRunner } from './tool-runner.js';

export interface McpEndpointDeps {
  config: McpConfig;
  idp: Idp;
  mapped?: MappedSessions;
  relay: Relay;
  /** RELAY_ALLOW, parsed (the built-in vertex lookup is offered only where it opens it). */
  allow: readonly AllowRule[];
  /** Absent: sessions in this process only (memory store mode). */
  redis?: RedisClient;
  prefix: string;
  credentialIds: CredentialIds;
  /** The keyed hash the audit trail names a principal by. */
  principalHandle: (principal: string) => string;
  quota?: UserQuota;
  audit?: Audit;
  logger: Logger;
  now: () => number;
  version: string;
}

export interface McpRequestContext {
  requestId: string;
  forwarded: ForwardedFor;
}

/** A session id as this service makes them (a UUID); anything else is unknown without a store lookup. */
const SESSION_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * The MCP endpoint (docs/mcp.md): an OAuth 2.1 protected resource (RFC 9728 metadata, bearer challenge) whose
 * bearers are the IdP's access tokens for MCP_RESOURCE; sessions by Mcp-Session-Id, per person, in Redis
 * (mcp-sessions.ts); tools from TigerGraph's catalog, called through the relay as the person (tool-runner.ts).
 * Framework-free: http/routes/mcp-routes.ts mounts it.
 */
export function createMcpEndpoint(deps: McpEndpointDeps) {
  const { config } = deps;
  const resourcePath = new URL(config.resource).pathname.replace(/\/+$/, '');
  // RFC 9728 §3.1: the metadata of a resource with a path is at the well-known path followed by that path.
  const metadataUrl = new URL(`${METADATA_PATH}${resourcePath}`, config.resource).href;
  const verify = createBearerVerifier({ idp: deps.idp, resource: config.resource, metadataUrl });
  const sessionOptions = { cap: config.sessionsPerPrincipal, idleMs: config.idleTimeoutSec * 1000, now: deps.now };
  const sessions: McpSessions = deps.redis
    ? redisMcpSessions(deps.redis, deps.prefix, sessionOptions)
    : memoryMcpSessions(sessionOptions);
  const principalOf = (sub: string) => deps.credentialIds('oidc', sub);

  return {
    metadataPaths: [...new Set([METADATA_PATH, `${METADATA_PATH}${resourcePath}`])],
    metadata: () => ({
      resource: config.resource,
      authorization_servers: [deps.idp.settings.issuer],
      bearer_methods_supported: ['header'],
      resource_name: 'TigerGraph through tigergraph-bff',
    }),

    /** Starts the tools part once a service's shared parts exist (the /api lane's per-credential limit). */
    withLimits(credentialConcurrency: { enter(key: string): void; leave(key: string): void }) {
      const runner = createToolRunner({
        relay: deps.relay,
        allow: deps.allow,
        credentialConcurrency,
        ...(deps.quota && { quota: deps.quota }),
        ...(deps.audit && { audit: deps.audit }),
      });
      const serverDeps = {
        runner,
        version: deps.version,
        principalHandle: deps.principalHandle,
        ...(deps.audit && { audit: deps.audit }),
      };

      return async function serve(req: IncomingMessage, res: ServerResponse, ctx: McpRequestContext): Promise<void> {
        res.setHeader('Cache-Control', 'no-store');
        const token = bearerOf(req.headers.authorization);
        if (token === undefined) throw challenge(metadataUrl);
        const person = await verify(token);
        const principal = principalOf(person.sub);
        const out = await sessions.signedOutAt(principal);
        if (out !== undefined && person.iat * 1000 <= out)
          throw challenge(metadataUrl, { code: 'invalid_token', description: 'you signed out after it was issued' });

        const method = req.method ?? 'GET';
        const header = req.headers['mcp-session-id'];
        const sessionId = typeof header === 'string' ? header : undefined;
        if (method === 'DELETE') {
          if (sessionId === undefined) throw new AppError('invalid_request', 'Mcp-Session-Id is required');
          if (!SESSION_ID.test(sessionId) || !(await sessions.end(principal, sessionId))) throw unknownSession();
          res.statusCode = 200;
          res.end();
          return;
        }
        if (method !== 'POST')
          throw new AppError(
            'method_not_allowed',
            'This endpoint answers POST (and DELETE to end a session); it pushes nothing',
            {
              headers: { Allow: 'POST, DELETE' },
            },
          );

        const body = await readRequestBody(req, config.maxBodyBytes);
        let message: unknown;
        try {
          message = JSON.parse(body === null ? '' : body.toString('utf8'));
        } catch {
          throw new AppError('invalid_request', 'The body is not JSON');
        }
        // JSON-RPC batches left MCP in 2025-06-18; one message per request bounds what one request costs.
        if (Array.isArray(message))
          throw new AppError('invalid_request', 'Send one JSON-RPC message per request (no batches)');
        const initialize = (message as { method?: unknown } | null)?.method === 'initialize';
        if (initialize) {
          const id = randomUUID();
          const evicted = await sessions.open(principal, id, person.idpSid);
          if (evicted > 0) deps.logger.info({ evicted }, 'MCP session cap: least recently used sessions ended');
          res.setHeader('Mcp-Session-Id', id);
        } else {
          if (sessionId === undefined)
            throw new AppError('invalid_request', 'Mcp-Session-Id is required: initialize first');
          if (!SESSION_ID.test(sessionId) || !(await sessions.touch(principal, sessionId))) throw unknownSession();
        }
        const access = personAccess(person, principal, {
          graphs: config.graphs,
          ...(deps.mapped && { mapped: deps.mapped }),
        });
        await answerMcp(
          serverDeps,
          { access, principal, requestId: ctx.requestId, forwarded: ctx.forwarded },
          req,
          res,
          message,
        );
      };
    },

    /**
     * The person signed out (their logout here, or the IdP's back-channel logout): their MCP sessions end on
     * every instance, and bearers issued before now open nothing more. A logout naming only the IdP session
     * reaches the person through the MCP session that recorded it.
     */
    async signedOut(subject: { sub?: string; sid?: string }): Promise<void> {
      const principal =
        subject.sub !== undefined
          ? principalOf(subject.sub)
          : subject.sid !== undefined
            ? await sessions.principalOfIdpSid(subject.sid)
            : undefined;
      if (principal !== undefined) await sessions.signOut(principal);
    },
  };
}

export type McpEndpoint = ReturnType<typeof createMcpEndpoint>;

const unknownSession = (): AppError =>
  new AppError('session_not_found', 'No MCP session of yours has that Mcp-Session-Id; initialize again');
