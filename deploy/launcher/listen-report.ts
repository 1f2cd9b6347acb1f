// What a process tells whoever started it about the ports it bound. Any port may be configured as 0
// (PORT, MCP_PORT, SETTINGS_PORT, ADMIN_PORT, a gRPC address `host:0`): the OS picks a free one at bind time, and
// this one stdout line says which it picked. A launcher reads the line instead of choosing ports
// up front, so no port is ever found free, released and bound later by someone else.
//
//   LISTENING {"admin":"http://127.0.0.1:41873","rest":"http://127.0.0.1:39211","grpc":{"identity":"127.0.0.1:40125"}}

export const LISTEN_REPORT_PREFIX = 'LISTENING ';

export interface ListenReport {
  /** The admin server (/healthz, /readyz, /metrics). */
  admin: string;
  /** The REST API's base URL (without /v1), when this process runs the gateway role. */
  rest?: string;
  /** The MCP endpoint, when this process runs the mcp role. */
  mcp?: string;
  /** The settings web app's base URL, served beside the REST API (gateway role). */
  settings?: string;
  /** Each gRPC service this process serves, at the address it bound. */
  grpc: Record<string, string>;
}

export function formatListenReport(report: ListenReport): string {
  return `${LISTEN_REPORT_PREFIX}${JSON.stringify(report)}`;
}

/** The report in a process's output so far; undefined until the line is complete. */
export function parseListenReport(output: string): ListenReport | undefined {
  for (const line of output.split('\n').slice(0, -1)) {
    if (line.startsWith(LISTEN_REPORT_PREFIX)) return JSON.parse(line.slice(LISTEN_REPORT_PREFIX.length)) as ListenReport;
  }
  return undefined;
}
