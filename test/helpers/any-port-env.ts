// Every listening address of the system at port 0: the OS picks each port, and the process reports
// the ones it got (its LISTENING line, or startSystem's result) — never find-a-port-then-bind.
import { GRPC_ADDRESS_VARIABLES, SERVICE_ROLES } from '../../services/kit/config.js';

export const ANY_PORT_ENV: Readonly<Record<string, string>> = {
  PORT: '0',
  MCP_PORT: '0',
  SETTINGS_PORT: '0',
  ADMIN_PORT: '0',
  ...Object.fromEntries(SERVICE_ROLES.map((s) => [GRPC_ADDRESS_VARIABLES[s], '127.0.0.1:0'])),
};
