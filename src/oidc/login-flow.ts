import { createHash, randomBytes } from 'node:crypto';
import * as client from 'openid-client';
import { AppError } from '../errors.js';
import { isSameOriginPath } from '../config/same-origin-path.js';
import { sealedAs } from '../crypto/crypto.js';
import type { OidcStores } from '../store/oidc-stores.js';
import type { Cipher } from '../store/types.js';
import { idpUnavailable, isIdpOutage, type Idp } from './idp.js';
import { accessClaims } from './jwt-claims.js';
import type { CredentialMap } from '../config/credential-map.js';
import { firstMatch, graphFor, notPermitted } from './credential-rules.js';
import { answerClaims, grantOf, resourceOf, revokeAtIdp } from './idp-token-api.js';

/** A login has this long from the redirect to the IdP until the callback. */
export const PRE_LOGIN_TTL_MS = 10 * 60 * 1000;
/** A longer return_to is not kept (it would ride in the pre-login cookie); the post-login path is used. */
const MAX_RETURN_TO = 512;

interface PreLogin {
  state: string;
  nonce: string;
  verifier: string;
  returnTo: string;
  /** The graph the login asked for (`?graph=`), a credential-map login's; absent: none asked. */
  graph?: string;
  /** Epoch ms after which the callback is refused. */
  expiresAt: number;
}

/** What a finished sign-on yields; the tokens stay server-side (sealed by the caller). */
export interface SignOn {
  accessToken: string;
  expiresAt: number;
  refreshToken: string;
  idToken?: string;
  /** The IdP's subject: the TigerGraph user name (the access token's `sub`). */
  sub: string;
  name?: string;
  /** The IdP's session id (`sid` of the id token), for back-channel logout. */
  idpSid?: string;
  graph: string | null;
  /** With the credential map: the rule that admitted the person (the session's graph is one it opens). */
  rule?: string;
  returnTo: string;
}

const failed = (message: string, cause?: unknown) =>
  new AppError('sso_failed', message, cause === undefined ? {} : { cause });

/** Keys of the back-channel index: hashed, so an IdP's identifiers never appear in key names. */
export const indexKeys = (issuer: string, sub: string, idpSid: string | undefined): string[] => {
  const h = (kind: string, v: string) =>
    `${kind}:${createHash('sha256').update(`${issuer}\n${v}`).digest('base64url')}`;
  return [h('sub', sub), ...(idpSid ? [h('sid', idpSid)] : [])];
};

export interface LoginFlow {
  /**
   * Starts a login: the IdP URL to send the browser to, and the pending login (state, nonce, PKCE verifier,
   * where to land) sealed for the browser's pre-login cookie. Nothing is stored server-side, so an
   * anonymous caller repeating this costs no Redis memory.
   */
  start(returnTo: string | undefined, graph?: string): Promise<{ preLogin: string; url: string }>;
  /**
   * Finishes the login the pre-login cookie names with the callback's query string; one use (the id is
   * recorded as spent once the IdP has answered the code exchange, so only completed logins write).
   */
  finish(preLogin: string | null, query: string): Promise<SignOn>;
}

/** `<id>.<sealed>`: the random id is the seal's owner, so a sealed value cannot be moved under another id. */
const PRE_LOGIN_FORM = /^([A-Za-z0-9_-]{32})\.(\S+)$/;

export function createLoginFlow(deps: {
  idp: Idp;
  stores: OidcStores;
  cipher: Cipher;
  now: () => number;
  /** OIDC_CREDENTIAL_MAP: a person no rule admits (or to a graph their rule does not open) is refused. */
  map?: CredentialMap;
}): LoginFlow {
  const { idp, stores, cipher } = deps;
  const settings = idp.settings;

  return {
    async start(returnTo, graph) {
      const config = await idp.configuration();
      const pre: PreLogin = {
        state: client.randomState(),
        nonce: client.randomNonce(),
        verifier: client.randomPKCECodeVerifier(),
        returnTo:
          returnTo !== undefined && returnTo.length <= MAX_RETURN_TO && isSameOriginPath(returnTo)
            ? returnTo
            : settings.postLoginPath,
        ...(graph !== undefined && { graph }),
        expiresAt: deps.now() + PRE_LOGIN_TTL_MS,
      };
      const id = randomBytes(24).toString('base64url'); // 32 characters
      const params: Record<string, string> = {
        redirect_uri: settings.redirectUri,
        scope: settings.scopes,
        state: pre.state,
        nonce: pre.nonce,
        code_challenge: await client.calculatePKCECodeChallenge(pre.verifier),
        code_challenge_method: 'S256',
        ...(settings.scopes.split(' ').includes('offline_access') && { prompt: 'consent' }),
        ...resourceOf(settings.audience),
      };
      const preLogin = `${id}.${cipher.encrypt(JSON.stringify(pre), sealedAs.preLogin(id))}`;
      return { preLogin, url: client.buildAuthorizationUrl(config, params).href };
    },

    async finish(preLogin, query) {
      if (preLogin === null) throw failed('No login is in progress in this browser; start the login again');
      const form = PRE_LOGIN_FORM.exec(preLogin);
      let pre: PreLogin;
      try {
        if (form === null) throw new Error('not a pre-login value');
        pre = JSON.parse(cipher.decrypt(form[2]!, sealedAs.preLogin(form[1]!))) as PreLogin;
      } catch (err) {
        throw failed('The login record is not readable; start the login again', err);
      }
      if (!(deps.now() < pre.expiresAt)) throw failed('The login expired; start the login again');
      // One use: a pending login that already completed is refused here, before the IdP is asked again
      // (a reused code makes an IdP revoke what it issued for it). Marked only once the IdP has vouched.
      const spent = `pre-login:${form![1]!}`;
      if (await stores.used(spent)) throw failed('The login was already completed; start the login again');
      const idpError = new URLSearchParams(query).get('error');
      if (idpError !== null) {
        const code = /^[\w.-]{1,64}$/.test(idpError) ? idpError : 'error';
        throw failed(`The identity provider did not complete the login (${code})`);
      }
      const config = await idp.configuration();
      // The callback URL is rebuilt from the configured redirect URI, never from the request's Host header.
      const current = new URL(settings.redirectUri);
      current.search = query;
      let answer: Awaited<ReturnType<typeof client.authorizationCodeGrant>>;
      try {
        answer = await client.authorizationCodeGrant(
          config,
          current,
          { pkceCodeVerifier: pre.verifier, expectedState: pre.state, expectedNonce: pre.nonce, idTokenExpected: true },
          resourceOf(settings.audience),
        );
      } catch (err) {
        if (isIdpOutage(err)) throw idpUnavailable(err);
        throw failed('The identity provider did not confirm the login', err);
      }
      const claims = answer.claims();
      if (!claims) throw failed('The identity provider did not issue an ID token');
      // Relayed, the access token is what TigerGraph verifies: a JWT for OIDC_AUDIENCE, whose subject is the
      // person. With a credential map it never leaves the service and may be opaque: the person is the ID
      // token's subject (verified by openid-client, and the one back-channel logout tokens name).
      const access = deps.map ? null : accessClaims(answer.access_token);
      if (!deps.map) {
        if (!access) throw failed('The identity provider did not issue a JWT access token with a subject');
        if (!access.aud.includes(settings.audience)) {
          throw failed('The access token is not for the configured audience (OIDC_AUDIENCE)');
        }
      }
      const sub = access ? access.sub : claims.sub;
      // Decided before anything is written: a person the map refuses leaves nothing behind here, and the
      // refresh token the IdP just issued for them is revoked (best effort).
      let admitted: { rule: string; graph: string | null } | undefined;
      if (deps.map) {
        try {
          const rule = firstMatch(deps.map, { ...answerClaims(answer), sub });
          if (rule === null) throw notPermitted();
          admitted = { rule: rule.name, graph: graphFor(rule, pre.graph ?? null) };
        } catch (err) {
          if (answer.refresh_token)
            await revokeAtIdp(idp, answer.refresh_token, 'refresh_token').catch(() => undefined);
          throw err;
        }
      }
      if (!(await stores.firstUse(spent, PRE_LOGIN_TTL_MS)))
        throw failed('The login was already completed; start the login again');
      const grant = grantOf(answer, undefined, deps.now());
      const name =
        typeof claims.name === 'string'
          ? claims.name
          : typeof claims.preferred_username === 'string'
            ? claims.preferred_username
            : undefined;
      return {
        accessToken: answer.access_token,
        expiresAt: grant.expiresAt,
        refreshToken: answer.refresh_token ?? '',
        ...(answer.id_token !== undefined && { idToken: answer.id_token }),
        sub,
        ...(name !== undefined && { name }),
        ...(typeof claims.sid === 'string' && { idpSid: claims.sid }),
        graph: admitted ? admitted.graph : (access?.graph ?? null),
        ...(admitted && { rule: admitted.rule }),
        returnTo: pre.returnTo,
      };
    },
  };
}
