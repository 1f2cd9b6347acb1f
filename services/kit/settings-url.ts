// Where people open the settings web app, and the OAuth authorization server it serves: the
// issuer named in the MCP server's protected-resource metadata, carried in the `iss` of the access
// tokens it signs and required by identity. Every party builds them here, from the same settings,
// so they agree wherever the system runs: SETTINGS_PUBLIC_URL when set (behind a proxy), else the
// settings app's host and port (its bound port in one-process mode).
import type { Config } from './config.js';

/** Where the authorization server is served, under the settings app's URL. */
export const OAUTH_PATH = '/oauth';

/** The settings app's public base URL, without a trailing slash. */
export function settingsPublicUrlOf(config: Pick<Config, 'SETTINGS_PUBLIC_URL' | 'HOST' | 'SETTINGS_PORT'>): string {
  if (config.SETTINGS_PUBLIC_URL) return config.SETTINGS_PUBLIC_URL.replace(/\/+$/, '');
  const host = config.HOST.includes(':') ? `[${config.HOST}]` : config.HOST;
  return `http://${host}:${config.SETTINGS_PORT}`;
}

/** The OAuth issuer: OAUTH_ISSUER when set (an external provider's, or a fixed public one), else the settings app's /oauth. */
export function oauthIssuerOf(config: Pick<Config, 'OAUTH_ISSUER' | 'SETTINGS_PUBLIC_URL' | 'HOST' | 'SETTINGS_PORT'>): string {
  return config.OAUTH_ISSUER ?? `${settingsPublicUrlOf(config)}${OAUTH_PATH}`;
}
