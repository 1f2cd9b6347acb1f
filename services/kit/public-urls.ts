// The public URLs OAuth needs agreed on: where people open the settings web app, the authorization
// server it serves (the issuer named in the MCP server's protected-resource metadata, carried in the
// `iss` of the access tokens it signs and required by identity), and the REST API's audience. Every
// party builds them here, from the same settings, so they agree wherever the system runs: the
// configured public URL when set (behind a proxy), else the host and port (the bound port in
// one-process mode). The MCP server's resource URL is built the same way in mcp-resource.ts.
import type { Config } from './config.js';
import { urlHost } from './url-host.js';

/** Where the authorization server is served, under the settings app's URL. */
export const OAUTH_PATH = '/oauth';

/** The settings app's public base URL, without a trailing slash. */
export function settingsPublicUrlOf(config: Pick<Config, 'SETTINGS_PUBLIC_URL' | 'HOST' | 'SETTINGS_PORT'>): string {
  if (config.SETTINGS_PUBLIC_URL) return config.SETTINGS_PUBLIC_URL.replace(/\/+$/, '');
  return `http://${urlHost(config.HOST)}:${config.SETTINGS_PORT}`;
}

/** The OAuth issuer: OAUTH_ISSUER when set (an external provider's, or a fixed public one), else the settings app's /oauth. */
export function oauthIssuerOf(config: Pick<Config, 'OAUTH_ISSUER' | 'SETTINGS_PUBLIC_URL' | 'HOST' | 'SETTINGS_PORT'>): string {
  return config.OAUTH_ISSUER ?? `${settingsPublicUrlOf(config)}${OAUTH_PATH}`;
}

/** The REST API's audience (RFC 8707): OAUTH_AUDIENCE when set, else http://HOST:PORT/v1. */
export function restAudienceOf(config: Pick<Config, 'OAUTH_AUDIENCE' | 'HOST' | 'PORT'>): string {
  if (config.OAUTH_AUDIENCE) return config.OAUTH_AUDIENCE;
  return `http://${urlHost(config.HOST)}:${config.PORT}/v1`;
}
