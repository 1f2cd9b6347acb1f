// The usage screen's data: for each credential of a user (the keys they minted, and OAuth grants of
// theirs used lately), the requests per UTC day over a window ending today, with every day present
// (0 when idle). Counts not yet flushed by this process's recorder are added, so a request shows at
// once here; another replica's appear within its flush interval (usage-recorder.ts).
import type { CredentialUsage, GetUsageRequest, GetUsageResponse, StatusClassCount } from '../../proto/gen/expertnet/identity/v1/self_service.js';
import { credentialKinds, keyEnvironments, rateTiers } from '../kit/enums.js';
import { domainError } from '../kit/grpc/errors.js';
import type { IdentityContext } from './identity-context.js';
import type { GrantRow } from './grant.repository.js';
import type { KeyRow } from './key.repository.js';
import { requestLogSince } from './request-log-retention.js';
import { createUsageHistoryRepository, type DailyCountRow } from './usage-history.repository.js';
import { utcDay } from '../kit/utc-day.js';
import type { UsageRecorder } from './usage-recorder.js';
import { GRANT_USAGE, KEY_USAGE } from './usage-store.js';

export const DEFAULT_USAGE_DAYS = 30;
export const MAX_USAGE_DAYS = 90;
/** At most this many keys and this many grants: a screen, not an export. */
const MAX_CREDENTIALS = 100;
const DAY_MS = 86_400_000;

/** The UTC days of a window of `days` ending on `now`'s day, oldest first. */
export function usageWindow(days: number, now = new Date()): string[] {
  return Array.from({ length: days }, (_, i) => utcDay(new Date(now.getTime() - (days - 1 - i) * DAY_MS)));
}

function windowLength(days: number): number {
  if (days === 0) return DEFAULT_USAGE_DAYS;
  if (days > MAX_USAGE_DAYS) throw domainError('invalid_request', `days must be 1 to ${MAX_USAGE_DAYS} (0 means ${DEFAULT_USAGE_DAYS})`);
  return days;
}

function series(window: string[], id: string, stored: DailyCountRow[], recorder: UsageRecorder) {
  const byDay = new Map(stored.filter((r) => r.credential_id === id).map((r) => [r.day, r.requests]));
  return window.map((day) => ({ day, requests: (byDay.get(day) ?? 0) + recorder.unflushed(id, day) }));
}

function keyUsage(key: KeyRow, days: CredentialUsage['days'], answers: StatusClassCount[]): CredentialUsage {
  return {
    id: key.id, kind: credentialKinds.toEnum('api_key'), label: key.display_prefix, environment: keyEnvironments.toEnum(key.environment),
    scopes: key.scopes, rateTier: rateTiers.toEnum(key.rate_tier), requestedRate: key.requested_rate,
    createdAt: key.created_at.toISOString(), revokedAt: key.revoked_at?.toISOString(), days, answers,
  };
}

function grantUsage(grant: GrantRow, days: CredentialUsage['days'], answers: StatusClassCount[]): CredentialUsage {
  return {
    id: grant.id, kind: credentialKinds.toEnum('oauth'), label: grant.client_id, environment: keyEnvironments.toEnum('live'),
    scopes: grant.scopes, rateTier: rateTiers.toEnum(grant.rate_tier), requestedRate: grant.requested_rate,
    createdAt: grant.created_at.toISOString(), revokedAt: grant.revoked_at?.toISOString(), days, answers,
  };
}

/** The keys to show: one named key (which the user must have minted: else not found), or all of them. */
async function keysOf(context: IdentityContext, request: GetUsageRequest, fromDay: string): Promise<KeyRow[]> {
  if (!request.keyId) return createUsageHistoryRepository(context.deps.db).keysShownSince(request.userId, fromDay, MAX_CREDENTIALS);
  const key = await context.keys.findById(request.keyId);
  if (!key || key.minted_by_user_id !== request.userId) throw domainError('not_found', `key ${request.keyId} not found`);
  return [key];
}

export async function getUsage(context: IdentityContext, request: GetUsageRequest): Promise<GetUsageResponse> {
  const window = usageWindow(windowLength(request.days));
  const [fromDay, toDay] = [window[0]!, window[window.length - 1]!];
  if (!(await context.users.findUser(request.userId))) throw domainError('not_found', `user ${request.userId} not found`);
  const history = createUsageHistoryRepository(context.deps.db);
  const keys = await keysOf(context, request, fromDay);
  const grants = request.keyId ? [] : await history.grantsUsedSince(request.userId, fromDay, MAX_CREDENTIALS);
  const [keyCounts, grantCounts, answerCounts] = await Promise.all([
    history.dailyCounts(KEY_USAGE, keys.map((k) => k.id), fromDay, toDay),
    history.dailyCounts(GRANT_USAGE, grants.map((g) => g.id), fromDay, toDay),
    context.requestLog.answerCounts(request.userId, requestLogSince()),
  ]);
  // Answers by status class come from the request log, so they cover its retention only.
  const answers = (id: string) => answerCounts.filter((a) => a.credential_id === id).map((a) => ({ statusClass: a.status_class, requests: Number(a.requests) }));
  return {
    credentials: [
      ...keys.map((k) => keyUsage(k, series(window, k.id, keyCounts, context.keyUsage), answers(k.id))),
      ...grants.map((g) => grantUsage(g, series(window, g.id, grantCounts, context.grantUsage), answers(g.id))),
    ],
    fromDay,
    toDay,
  };
}
