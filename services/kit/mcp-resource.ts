// The MCP server's resource URI (RFC 8707/9728): what it names itself in its protected-resource
// metadata, and so the audience an OAuth access token for it carries. Three parties must agree on
// it — the MCP server (which advertises it), identity (which accepts tokens for it) and the admin
// CLI (which issues them) — so it is built in this one place: MCP_RESOURCE_URL when set (the public
// URL behind a proxy), else http://HOST:MCP_PORT/mcp.
import type { Config } from './config.js';
import { urlHost } from './url-host.js';

export const MCP_PATH = '/mcp';

/** `http://<host>:<port>/mcp`, an IPv6 host in brackets. */
export function defaultMcpResourceUrl(host: string, port: number): string {
  return `http://${urlHost(host)}:${port}${MCP_PATH}`;
}

/** The MCP resource URI of a configuration. */
export function mcpResourceUrlOf(config: Pick<Config, 'MCP_RESOURCE_URL' | 'HOST' | 'MCP_PORT'>): string {
  return config.MCP_RESOURCE_URL ?? defaultMcpResourceUrl(config.HOST, config.MCP_PORT);
}
