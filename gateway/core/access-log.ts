// The access log: one structured line per request the edge answers, on the REST and the MCP surface
// alike, so a request id quoted by a client (a 401 or a 404 included) can be found. It names the
// route template, never the raw URL (which may carry identifiers), and the caller's key id, never
// a credential. The admin port's /healthz, /readyz and /metrics are not edge requests: they are
// neither logged here nor traced (services/kit/telemetry-sdk.ts).
import type { Logger } from '../../services/kit/logger.js';
import type { Caller } from '../../proto/gen/expertnet/common/v1/common.js';

export interface AccessRecord {
  surface: 'rest' | 'mcp';
  method: string;
  /** The route template (`/v1/communities/:id/members`), or `unmatched`. */
  route: string;
  status: number;
  durationMs: number;
  requestId: string;
  caller?: Pick<Caller, 'credentialId'> | null | undefined;
}

export function logAccess(logger: Logger, record: AccessRecord): void {
  logger.info(
    {
      surface: record.surface,
      method: record.method,
      route: record.route,
      status: record.status,
      duration_ms: Math.round(record.durationMs * 10) / 10,
      requestId: record.requestId,
      ...(record.caller?.credentialId ? { key_id: record.caller.credentialId } : {}),
    },
    'request',
  );
}
