// Starts the settings web app (gateway/settings) on SETTINGS_PORT: its cookies are signed with a
// key derived from the server secrets (one per environment, the same across replicas), and its
// CSRF tokens bound to the session with another, its cookies are Secure (and __Host- prefixed)
// when its public URL is https, its sessions follow the configured lifetimes, and it
// offers sign-in at an OpenID Connect provider when SETTINGS_OIDC_ISSUER is set (the provider sends
// people back to the public URL, known once the port is bound); without an external issuer it
// serves the OAuth authorization server under /oauth, its state in the edge's schema.
import { createHmac } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { buildSettingsApp } from '../../gateway/settings/app.js';
import { createAuthorizationServer, type OutgoingFetch } from '../../gateway/settings/authorization-server.js';
import { oauthStateAdapter } from '../../gateway/settings/oauth-state.js';
import { OidcSignIn } from '../../gateway/settings/oidc-sign-in.js';
import type { Queryable } from '../../services/kit/db/database.js';
import { mcpResourceUrlOf } from '../../services/kit/mcp-resource.js';
import { oauthIssuerOf, restAudienceOf } from '../../services/kit/public-urls.js';
import { urlHost } from '../../services/kit/url-host.js';
import type { Config } from '../../services/kit/config.js';
import type { ServiceClients } from '../../services/kit/grpc/client.js';
import type { TokenSigner } from '../../services/kit/grpc/caller-token.js';
import type { Logger } from '../../services/kit/logger.js';
import type { ServerSecrets } from '../../services/kit/secrets.js';
import { settingsBaseUrl } from './sign-in-link.js';

export interface RunningSettings {
  /** Where it listens. */
  url: string;
  /** Where people open it (sign-in links): SETTINGS_PUBLIC_URL, else `url`. */
  publicUrl: string;
  close(): Promise<void>;
}

/** The authorization server, when this system issues its own tokens (no external issuer's JWKS). */
function authorizationServerOf(config: Config, secrets: ServerSecrets, db: Queryable, fetch?: OutgoingFetch) {
  if (config.OAUTH_JWKS_URL || !secrets.oauthSigningPrivateKey) return undefined;
  return createAuthorizationServer({
    issuer: oauthIssuerOf(config),
    signingKeyPem: secrets.oauthSigningPrivateKey,
    resources: [restAudienceOf(config), mcpResourceUrlOf(config)],
    cookieKey: createHmac('sha256', secrets.apiKeyPepper).update('settings-oauth-cookie-signing').digest('base64url'),
    adapter: oauthStateAdapter(db),
    ...(fetch && { fetch }),
    fetchPrivateAddresses: config.OAUTH_CLIENT_METADATA_ALLOW_PRIVATE_URLS,
  });
}

export async function startSettingsSurface(
  config: Config, clients: ServiceClients, signer: TokenSigner, secrets: ServerSecrets, logger: Logger, db: Queryable, server?: Server,
  clientMetadataFetch?: OutgoingFetch,
): Promise<RunningSettings> {
  let publicUrl = settingsBaseUrl(config);
  const oidc = config.SETTINGS_OIDC_ISSUER && config.SETTINGS_OIDC_CLIENT_ID
    ? new OidcSignIn({
      issuer: config.SETTINGS_OIDC_ISSUER, clientId: config.SETTINGS_OIDC_CLIENT_ID, name: config.SETTINGS_OIDC_NAME,
      ...(config.SETTINGS_OIDC_CLIENT_SECRET && { clientSecret: config.SETTINGS_OIDC_CLIENT_SECRET }),
    }, () => `${publicUrl}/sign-in/oidc/callback`)
    : undefined;
  const authorizationServer = authorizationServerOf(config, secrets, db, clientMetadataFetch);
  const app = await buildSettingsApp({
    clients, signer, deadlineMs: config.GRPC_DEADLINE_MS, logger, ...(oidc && { oidc }),
    ...(authorizationServer && {
      authorizationServer, resourceNames: { [restAudienceOf(config)]: 'REST API', [mcpResourceUrlOf(config)]: 'MCP server' },
    }),
    ...(server && { server }),
    cookieSecret: createHmac('sha256', secrets.apiKeyPepper).update('settings-cookie-signing').digest('base64url'),
    csrfKey: createHmac('sha256', secrets.apiKeyPepper).update('settings-csrf-binding').digest('base64url'),
    secureCookies: (config.SETTINGS_PUBLIC_URL ?? '').startsWith('https:'),
    session: { idleSeconds: config.SETTINGS_SESSION_IDLE_SECONDS, absoluteSeconds: config.SETTINGS_SESSION_MAX_SECONDS },
  });
  if (server) await app.ready();
  else await app.listen({ host: config.HOST, port: config.SETTINGS_PORT });
  const port = (app.server.address() as AddressInfo).port;
  publicUrl = settingsBaseUrl(config, port);
  return { url: `http://${urlHost(config.HOST)}:${port}`, publicUrl, close: () => app.close() };
}
