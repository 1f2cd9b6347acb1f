// The request log's two RPCs. RecordRequests keeps what the edge reports (fields clipped to their
// bounds, a request of a credential identity does not know left out); ListRequests answers a
// user's own requests, newest first, within the retention (request-log-retention.ts), filtered by
// credential, status class and request id, a keyset page at a time.
import type {
  FinishedRequest, ListRequestsRequest, ListRequestsResponse, RecordRequestsRequest, RecordRequestsResponse,
} from '../../proto/gen/expertnet/identity/v1/request_log.js';
import { credentialKinds } from '../kit/enums.js';
import { domainError } from '../kit/grpc/errors.js';
import { clampPageSize, pageOf } from '../kit/paging.js';
import type { IdentityContext } from './identity-context.js';
import { toLoggedRequest } from './identity-messages.js';
import { requestLogSince } from './request-log-retention.js';
import type { RequestLogInput } from './request-log.repository.js';

const MAX_BATCH = 1000;
const MAX_PAGE = 100;
/** Request ids are at most 128 characters (gateway/core/request-id.ts). */
const MAX_REQUEST_ID = 128;

/** What is kept of one reported request; undefined when it cannot be kept. */
function inputOf(r: FinishedRequest): RequestLogInput | undefined {
  const kind = credentialKinds.names.find((n) => credentialKinds.toEnum(n) === r.credentialKind);
  const at = new Date(r.at ?? '');
  if (!kind || !r.credentialId || Number.isNaN(at.getTime()) || r.status < 100 || r.status > 599) return undefined;
  return {
    credentialId: r.credentialId, credentialKind: kind, at, surface: r.surface.slice(0, 8), method: r.method.slice(0, 16),
    path: r.path.slice(0, 200), tool: r.tool.slice(0, 64), status: r.status,
    latencyMs: Number.isFinite(r.latencyMs) && r.latencyMs >= 0 ? r.latencyMs : 0, requestId: r.requestId.slice(0, MAX_REQUEST_ID),
  };
}

export async function recordRequests(context: IdentityContext, request: RecordRequestsRequest): Promise<RecordRequestsResponse> {
  if (request.requests.length > MAX_BATCH) throw domainError('invalid_request', `at most ${MAX_BATCH} requests a call`);
  const rows = request.requests.map(inputOf).filter((r): r is RequestLogInput => r !== undefined);
  const users = await context.requestLog.insert(rows);
  context.requestLogRetention.touch(users);
  return { recorded: users.length };
}

/** The token of the page after `row`: its moment and id. */
const tokenOf = (row: { at: Date; id: string }) => `${row.at.getTime()}.${row.id}`;

function afterOf(token: string): { at: Date; id: string } | undefined {
  if (!token) return undefined;
  const match = /^(\d{1,15})\.(\d{1,18})$/.exec(token);
  if (!match) throw domainError('invalid_request', 'page_token is not one this list gave');
  return { at: new Date(Number(match[1])), id: match[2]! };
}

export async function listRequests(context: IdentityContext, request: ListRequestsRequest): Promise<ListRequestsResponse> {
  if (request.statusClass !== 0 && (request.statusClass < 1 || request.statusClass > 5)) {
    throw domainError('invalid_request', 'status_class must be 1 to 5 (2 for 2xx), or 0 for any');
  }
  if (request.requestId.length > MAX_REQUEST_ID) throw domainError('invalid_request', `request_id is at most ${MAX_REQUEST_ID} characters`);
  const limit = clampPageSize(request.pageSize, 50, MAX_PAGE);
  const after = afterOf(request.pageToken);
  const rows = await context.requestLog.list({
    userId: request.userId, since: requestLogSince(), credentialId: request.credentialId, statusClass: request.statusClass,
    requestId: request.requestId, ...(after && { after }),
  }, limit + 1);
  const page = pageOf(rows, limit, tokenOf);
  return { requests: page.items.map(toLoggedRequest), nextPageToken: page.nextPageToken };
}
