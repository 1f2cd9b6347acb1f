// Where the admin CLI reaches the system: the gRPC addresses the environment gives
// (<SERVICE>_GRPC_ADDR), else the ports the system started from the same DATA_DIR bound, which it
// keeps in DATA_DIR/running.json (deploy/launcher/running-file.ts). With neither, the CLI stops
// with one line that says so, before any call is tried.
import { GRPC_ADDRESS_VARIABLES, grpcAddressesOf, SERVICE_ROLES, type Config, type ServiceRole } from '../../services/kit/config.js';
import { mcpResourceUrlOf } from '../../services/kit/mcp-resource.js';
import { findRunningSystem } from '../launcher/running-file.js';
import { settingsBaseUrl } from '../launcher/sign-in-link.js';

export interface SystemLocation {
  addresses: Record<ServiceRole, string>;
  /** The settings app's public base URL, which sign-in links are built on. */
  settingsUrl: string;
  /** The MCP server's resource URL (the audience of its tokens): MCP_RESOURCE_URL, else the endpoint the running system bound. */
  mcpResourceUrl: string;
  /** The running system said its gRPC is mutual TLS (DATA_DIR/running.json). */
  grpcTls: boolean;
}

/** No address given and no system running from this data folder. */
export class NoRunningSystemError extends Error {}

export function locateSystem(config: Config, env: NodeJS.ProcessEnv = process.env): SystemLocation {
  const given = SERVICE_ROLES.filter((s) => env[GRPC_ADDRESS_VARIABLES[s]]);
  const found = findRunningSystem(config.DATA_DIR);
  const running = found.state === 'running' ? found.record : undefined;
  // SETTINGS_PUBLIC_URL set here wins; else where the running system said its links point.
  const settingsUrl = config.SETTINGS_PUBLIC_URL || !running?.settingsPublicUrl ? settingsBaseUrl(config) : running.settingsPublicUrl;
  if (given.length === 0 && !running) {
    const gone = found.state === 'stale' ? ` (the process ${found.pid} that started it is gone)` : '';
    throw new NoRunningSystemError(
      `no running system found for data folder ${config.DATA_DIR}${gone}; start it with npm start, ` +
      `or set ${SERVICE_ROLES.map((s) => GRPC_ADDRESS_VARIABLES[s]).join(', ')}`,
    );
  }
  const configured = grpcAddressesOf(config);
  // An address given in the environment wins over the running system's, service by service.
  const addresses = Object.fromEntries(SERVICE_ROLES.map((s) => [
    s, given.includes(s) || !running?.listening.grpc[s] ? configured[s] : running.listening.grpc[s],
  ])) as Record<ServiceRole, string>;
  const mcpResourceUrl = config.MCP_RESOURCE_URL || !running?.listening.mcp ? mcpResourceUrlOf(config) : running.listening.mcp;
  return { addresses, settingsUrl, mcpResourceUrl, grpcTls: running?.grpcTls === true };
}
