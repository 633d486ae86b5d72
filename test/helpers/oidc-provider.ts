import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type JWK } from 'jose';
import type ProviderClass from 'oidc-provider';

/**
 * A real OpenID provider (panva's oidc-provider) on a loopback port, for the single sign-on tests (and the
 * Chromium e2e): one confidential test client, RS256 keys, JWT access tokens for one resource (audience)
 * whose `sub` is the account id (the TigerGraph user), refresh tokens with offline_access, revocation,
 * RP-initiated logout and back-channel logout. Its dev interactions accept any login name.
 */
export interface TestIdp {
  issuer: string;
  clientId: string;
  clientSecret: string;
  audience: string;
  /** The public signing key as a JWKS document (what TigerGraph's Security.JWT.RSA.PublicKey may name). */
  publicJwks: { keys: JWK[] };
  /** The public key as PEM (SPKI). */
  publicPem: string;
  /** Refresh-token grants answered successfully so far. */
  refreshGrants(): number;
  /** Token-endpoint requests of any kind so far. */
  tokenRequests(): number;
  /** Opaque access tokens issued so far (kept by the provider; a JWT access token is not). */
  opaqueAccessTokens(): number;
  /**
   * Connections over which a relying party's OIDC library called (user agent openid-client, oauth4webapi or
   * jose: the service, never the test's own browser steps): open now, and the most open at once so far.
   */
  relyingPartyConnections(): { open: number; peak: number };
  /** Refresh tokens the provider destroyed (revoked, consumed by rotation, or by destroyAllRefreshTokens). */
  destroyedRefreshTokens(): number;
  /** The provider's session id (`sid` of the id token) of the latest login of the test client. */
  lastSid(): string | undefined;
  /** Revokes every refresh token issued so far (the next refresh grant fails with invalid_grant). */
  destroyAllRefreshTokens(): Promise<void>;
  /** A logout token signed with the provider's key; claims override the valid defaults (undefined removes one). */
  logoutToken(claims: Record<string, unknown>, options?: { key?: 'provider' | 'foreign' }): Promise<string>;
  /**
   * An access token (JWT) as the provider issues one for a resource, signed with its key: iss, sub, aud, iat,
   * exp (5 minutes) by default; claims override them (undefined removes one). For resource servers that only
   * verify bearers (the MCP endpoint), without a browser's authorization-code flow.
   */
  accessToken(claims: Record<string, unknown>, options?: { key?: 'provider' | 'foreign' }): Promise<string>;
  /** Stops answering (connections refused) / starts again on the same port. */
  stop(): Promise<void>;
  restart(): Promise<void>;
  close(): Promise<void>;
}

export interface TestIdpOptions {
  /** Where the service's callback is (registered as the client's redirect URI). */
  redirectUris: string[];
  postLogoutRedirectUris?: string[];
  backchannelLogoutUri?: string;
  /** Access-token lifetime, seconds (short, to test refresh). Default 300. */
  accessTokenTtl?: number;
  /** Rotate refresh tokens on every use. Default false. */
  rotateRefreshTokens?: boolean;
  /** Audience (resource indicator) the access tokens are for. Default urn:tigergraph:test. */
  audience?: string;
  /** The `aud` the access tokens actually carry, when it should differ from the resource asked for (a misconfigured IdP). */
  issuedAudience?: string;
  /** Extra claims of every access token (e.g. { graph: 'social' }). */
  accessClaims?: Record<string, unknown>;
  /** Extra claims of one account's access tokens, asked at every issue (a login, each refresh): e.g. its groups. */
  accessClaimsOf?: (accountId: string) => Record<string, unknown> | undefined;
  /**
   * Opaque access tokens, as an IdP issues them when no resource (audience) is asked for (Entra ID without an
   * API, Auth0 without an audience, Google): nothing readable in them, so `accessClaimsOf`'s claims go into
   * every ID token instead (profile scope), as a groups claim configured for ID tokens does.
   */
  opaqueAccessTokens?: boolean;
  /** The token endpoint answers this many ms late (a slow IdP), so calls that arrive together overlap. */
  tokenDelayMs?: number;
}

export const BACKCHANNEL_EVENT = 'http://schemas.openid.net/event/backchannel-logout';

/** oidc-provider prints its development-mode notices (memory adapter, dev interactions, Node 20) with console.*. */
async function quietly<T>(make: () => Promise<T>): Promise<T> {
  const saved = { warn: console.warn, info: console.info };
  console.warn = () => undefined;
  console.info = () => undefined;
  try {
    return await make();
  } finally {
    console.warn = saved.warn;
    console.info = saved.info;
  }
}

export async function startTestIdp(options: TestIdpOptions): Promise<TestIdp> {
  const server: Server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as AddressInfo).port;
  const issuer = `http://127.0.0.1:${port}`;
  const clientId = 'tgbff-test';
  const clientSecret = 'a-test-client-secret-that-is-long-enough-0123456789';
  const audience = options.audience ?? 'urn:tigergraph:test';

  const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true });
  const privateJwk = { ...(await exportJWK(privateKey)), kid: 'test-rs256', alg: 'RS256', use: 'sig' };
  const publicJwk = { ...(await exportJWK(publicKey)), kid: 'test-rs256', alg: 'RS256', use: 'sig' };
  const { createPublicKey } = await import('node:crypto');
  const publicPem = createPublicKey({ key: publicJwk as import('node:crypto').JsonWebKey, format: 'jwk' })
    .export({ type: 'spki', format: 'pem' })
    .toString();
  const foreign = await generateKeyPair('RS256');

  const provider = await quietly(async (): Promise<ProviderClass> => {
    const { default: Provider, errors: providerErrors } = await import('oidc-provider');
    return new Provider(issuer, {
      clients: [
        {
          client_id: clientId,
          client_secret: clientSecret,
          redirect_uris: options.redirectUris,
          post_logout_redirect_uris: options.postLogoutRedirectUris ?? [],
          grant_types: ['authorization_code', 'refresh_token'],
          response_types: ['code'],
          token_endpoint_auth_method: 'client_secret_basic',
          ...(options.backchannelLogoutUri && {
            backchannel_logout_uri: options.backchannelLogoutUri,
            backchannel_logout_session_required: true,
          }),
        },
      ],
      jwks: { keys: [privateJwk] },
      // Its SSRF guard refuses loopback addresses; in tests the back-channel receiver is on loopback.
      fetch: (url, init) => fetch(url, { ...init, dispatcher: undefined } as RequestInit),
      cookies: { keys: ['test-cookie-key-0123456789abcdef'] },
      pkce: { required: () => true },
      findAccount: (_ctx, id) => ({
        accountId: id,
        claims: () => ({
          sub: id,
          name: `User ${id}`,
          ...(options.opaqueAccessTokens && options.accessClaimsOf?.(id)),
        }),
      }),
      claims: { openid: ['sub'], profile: options.opaqueAccessTokens ? ['name', 'groups'] : ['name'] },
      // Opaque access tokens: the profile claims go into the ID token, not only to the userinfo endpoint.
      ...(options.opaqueAccessTokens && { conformIdTokenClaims: false }),
      features: {
        devInteractions: { enabled: true },
        revocation: { enabled: true, allowedPolicy: () => true },
        rpInitiatedLogout: {
          enabled: true,
          logoutSource: (ctx, form) => {
            ctx.body = `<!doctype html><title>Sign out</title>${form}<button form="op.logoutForm" name="logout" value="yes">Sign out</button>`;
          },
        },
        backchannelLogout: { enabled: true },
        resourceIndicators: {
          enabled: true,
          // Opaque: no resource unless one is asked for, so the access token is for userinfo only.
          defaultResource: () => (options.opaqueAccessTokens ? undefined : audience),
          useGrantedResource: () => true,
          getResourceServerInfo: (_ctx, resource) => {
            if (resource !== audience) throw new providerErrors.InvalidTarget();
            return {
              scope: 'openid profile',
              audience: options.issuedAudience ?? audience,
              accessTokenFormat: 'jwt',
              accessTokenTTL: options.accessTokenTtl ?? 300,
              jwt: { sign: { alg: 'RS256' } },
            };
          },
        },
      },
      extraTokenClaims: (_ctx, token) => {
        const own = 'accountId' in token && token.accountId ? options.accessClaimsOf?.(token.accountId) : undefined;
        return own === undefined ? options.accessClaims : { ...options.accessClaims, ...own };
      },
      rotateRefreshToken: () => options.rotateRefreshTokens === true,
      ttl: {
        RefreshToken: 3600,
        Session: 3600,
        Grant: 3600,
        Interaction: 600,
        AuthorizationCode: 60,
        IdToken: 300,
        AccessToken: options.accessTokenTtl ?? 300,
      },
    });
  });
  provider.on('server_error', (_ctx, err) => console.error('test IdP server_error', err));
  provider.on('backchannel.error', (_ctx, err) => console.error('test IdP back-channel logout failed', err));

  let refreshGrants = 0;
  let tokenRequests = 0;
  let destroyed = 0;
  const issuedRefresh: Array<{ destroy(): Promise<void> }> = [];
  provider.on('grant.success', (ctx) => {
    if ((ctx.oidc.params as Record<string, unknown> | undefined)?.grant_type === 'refresh_token') refreshGrants++;
  });
  provider.on('refresh_token.saved', (token) => issuedRefresh.push(token));
  let lastSid: string | undefined;
  provider.on('session.saved', (session) => {
    const sid = session.authorizations?.[clientId]?.sid;
    if (sid) lastSid = sid;
  });
  provider.on('refresh_token.destroyed', () => destroyed++);
  let opaque = 0;
  provider.on('access_token.saved', () => opaque++);
  const handler = provider.callback();
  const rpSockets = new Set<import('node:net').Socket>();
  let rpPeak = 0;
  server.on('request', (req, res) => {
    const socket = req.socket;
    if (/^(openid-client|oauth4webapi|jose)\//.test(String(req.headers['user-agent'])) && !rpSockets.has(socket)) {
      rpSockets.add(socket);
      rpPeak = Math.max(rpPeak, rpSockets.size);
      socket.once('close', () => rpSockets.delete(socket));
    }
    const token = req.url?.startsWith('/token') === true;
    if (token) tokenRequests++;
    // koa answers its own errors
    if (token && options.tokenDelayMs) setTimeout(() => void handler(req, res), options.tokenDelayMs);
    else void handler(req, res);
  });

  const sockets = new Set<import('node:net').Socket>();
  server.on('connection', (s) => {
    sockets.add(s);
    s.once('close', () => sockets.delete(s));
  });
  const stop = async () => {
    if (!server.listening) return;
    const closed = new Promise((r) => server.close(r));
    for (const s of sockets) s.destroy();
    await closed;
  };

  return {
    issuer,
    clientId,
    clientSecret,
    audience,
    publicJwks: { keys: [publicJwk] },
    publicPem,
    refreshGrants: () => refreshGrants,
    tokenRequests: () => tokenRequests,
    opaqueAccessTokens: () => opaque,
    relyingPartyConnections: () => ({ open: rpSockets.size, peak: rpPeak }),
    destroyedRefreshTokens: () => destroyed,
    lastSid: () => lastSid,
    async destroyAllRefreshTokens() {
      for (const t of issuedRefresh.splice(0)) await t.destroy();
    },
    async logoutToken(claims, opts) {
      const now = Math.floor(Date.now() / 1000);
      const base: Record<string, unknown> = {
        iss: issuer,
        aud: clientId,
        iat: now,
        exp: now + 120,
        jti: `jti-${Math.random().toString(36).slice(2)}`,
        events: { [BACKCHANNEL_EVENT]: {} },
      };
      const merged = { ...base, ...claims };
      for (const [k, v] of Object.entries(merged)) if (v === undefined) delete merged[k];
      const key = opts?.key === 'foreign' ? foreign.privateKey : privateKey;
      return new SignJWT(merged).setProtectedHeader({ alg: 'RS256', kid: 'test-rs256', typ: 'logout+jwt' }).sign(key);
    },
    async accessToken(claims, opts) {
      const now = Math.floor(Date.now() / 1000);
      const merged: Record<string, unknown> = { iss: issuer, aud: audience, iat: now, exp: now + 300, ...claims };
      for (const [k, v] of Object.entries(merged)) if (v === undefined) delete merged[k];
      const key = opts?.key === 'foreign' ? foreign.privateKey : privateKey;
      return new SignJWT(merged).setProtectedHeader({ alg: 'RS256', kid: 'test-rs256', typ: 'at+jwt' }).sign(key);
    },
    stop,
    async restart() {
      if (server.listening) return;
      server.listen(port, '127.0.0.1');
      await once(server, 'listening');
    },
    close: stop,
  };
}
