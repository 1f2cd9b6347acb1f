// The OAuth authorization server one-click MCP clients connect through (docs/OAUTH.md "The
// authorization server"), served by the settings web app under /oauth: oidc-provider (a certified
// implementation) configured for what MCP clients do today —
//   - RFC 8414 metadata, dynamic client registration (RFC 7591) for public clients, and client ID
//     metadata documents (a client named by the https URL of its metadata);
//   - the authorization code flow with PKCE, S256 only, for every client;
//   - resource indicators (RFC 8707): a token is for the REST API or the MCP server, never another
//     resource, and is accepted by that surface alone;
//   - short-lived JWT access tokens signed by the local OAuth key identity verifies, carrying the
//     identity grant they come from (`grant_id`), and refresh tokens that rotate on every use.
// Consent is the settings app's page (consent-routes.ts): a grant is created in identity when the
// signed-in user approves, and the provider's grant has the same id, so revoking it in the keys
// screen refuses every token issued under it.
import { createPrivateKey } from 'node:crypto';
import Provider, { errors, type AdapterConstructor, type Configuration } from 'oidc-provider';
import { SCOPES } from '../../services/kit/scopes.js';
import { guardedFetch, type OutgoingFetch } from './guarded-fetch.js';
import { html, page } from './html.js';
import { redirectUriProblem } from './redirect-uris.js';

export type { OutgoingFetch };

export interface AuthorizationServerOptions {
  /** The issuer: the settings app's public URL + /oauth (services/kit/public-urls.ts). */
  issuer: string;
  /** The local OAuth signing key (Ed25519, PKCS#8 PEM) identity verifies access tokens with. */
  signingKeyPem: string;
  /** The resources tokens may be for: the REST API's audience and the MCP server's resource URL. */
  resources: readonly string[];
  /** Signs the provider's own cookies (interaction and session state). */
  cookieKey: string;
  /** Where its state is kept (oauth-state.ts: the edge's schema, shared by replicas). */
  adapter: AdapterConstructor;
  /**
   * How the provider fetches a client's metadata document and anything else a client's metadata
   * names (default: guarded-fetch.ts, public addresses only, checked before connecting). The suite
   * passes one that reaches a document server on this machine under a public name.
   */
  fetch?: OutgoingFetch;
  /** The default fetch may reach loopback and private addresses (OAUTH_CLIENT_METADATA_ALLOW_PRIVATE_URLS). */
  fetchPrivateAddresses?: boolean;
}

/** How long an access token lives (identity accepts at most an hour). */
export const ACCESS_TOKEN_SECONDS = 900;
const REFRESH_TOKEN_SECONDS = 14 * 24 * 3600;

/** The settings app's consent page for an interaction of the provider. */
export const consentPath = (uid: string) => `/authorize/${uid}`;

export function createAuthorizationServer(options: AuthorizationServerOptions): Provider {
  const resources = new Set(options.resources);
  const jwk = { ...createPrivateKey(options.signingKeyPem).export({ format: 'jwk' }), alg: 'EdDSA', use: 'sig', kid: 'local-oauth' };
  const configuration: Configuration = {
    adapter: options.adapter,
    fetch: (options.fetch ?? guardedFetch({ allowPrivateAddresses: options.fetchPrivateAddresses === true })) as Configuration['fetch'],
    jwks: { keys: [jwk] },
    cookies: { keys: [options.cookieKey] },
    scopes: ['openid', 'offline_access', ...SCOPES],
    claims: { openid: ['sub'] },
    // The user is the settings session's: the consent page finishes the login step with it.
    findAccount: (_ctx, sub) => ({ accountId: sub, claims: () => ({ sub }) }),
    interactions: { url: (_ctx, interaction) => consentPath(interaction.uid) },
    pkce: { required: () => true },
    // Registered clients are public (`none`); service accounts authenticate with their secret or
    // their key (client-credentials.ts).
    clientAuthMethods: ['none', 'client_secret_basic', 'client_secret_post', 'private_key_jwt'],
    features: {
      devInteractions: { enabled: false },
      registration: { enabled: true },
      // A client may instead name itself by the https URL of its metadata document (draft-02, as
      // current MCP clients do): the provider fetches and caches it; no registration is stored.
      clientIdMetadataDocument: { enabled: true, ack: 'draft-02' },
      revocation: { enabled: true },
      // Advertised for service accounts (grant_types_supported); the grant itself is answered
      // before the provider sees it (client-credentials.ts), against identity's service accounts.
      clientCredentials: { enabled: true },
      resourceIndicators: {
        enabled: true,
        // A request naming no resource is for the MCP server: what one-click clients connect to.
        defaultResource: () => options.resources[options.resources.length - 1]!,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx, resource) => {
          if (!resources.has(resource)) throw new errors.InvalidTarget(`${resource} is not a resource of this system`);
          return {
            scope: SCOPES.join(' '),
            audience: resource,
            accessTokenTTL: ACCESS_TOKEN_SECONDS,
            accessTokenFormat: 'jwt',
            jwt: { sign: { alg: 'EdDSA', kid: 'local-oauth' } },
          };
        },
      },
    },
    // A request the provider cannot send back to the client (an unknown client or redirect URI) is
    // answered here, as a settings page that says what went wrong.
    renderError: (ctx, out) => {
      ctx.type = 'html';
      ctx.body = page({
        title: 'Authorization failed',
        notice: { kind: 'error', text: `${out.error}: ${out.error_description ?? 'the request was refused'}` },
        body: html`<p>Start again from the application. If it keeps failing, its registration may be out of date.</p>`,
      });
    },
    // The identity grant a token comes from: identity re-checks it on every request.
    extraTokenClaims: (_ctx, token) => (token.kind === 'AccessToken' && token.grantId ? { grant_id: token.grantId } : undefined),
    issueRefreshToken: (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    rotateRefreshToken: true,
    responseTypes: ['code'],
    // Every client's redirect URIs, registered or in a metadata document: https, or http on a
    // loopback address (RFC 8252), as the MCP authorization spec asks (redirect-uris.ts).
    extraClientMetadata: {
      properties: ['redirect_uris'],
      validator: (_ctx, key, value) => {
        const problem = key === 'redirect_uris' ? redirectUriProblem(value) : undefined;
        // (The error's own description is about an authorization request's redirect_uri.)
        if (problem) throw Object.assign(new errors.InvalidRedirectUri(), { error_description: problem });
      },
    },
    clientDefaults: {
      grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none',
      id_token_signed_response_alg: 'EdDSA',
    },
    ttl: {
      AccessToken: ACCESS_TOKEN_SECONDS,
      AuthorizationCode: 60,
      RefreshToken: REFRESH_TOKEN_SECONDS,
      Grant: REFRESH_TOKEN_SECONDS,
      Interaction: 600,
      Session: 3600,
    },
  };
  return new Provider(options.issuer, configuration);
}
