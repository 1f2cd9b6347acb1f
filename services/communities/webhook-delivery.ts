// One attempt at a claimed webhook delivery (docs/WEBHOOKS.md "Delivery"): skipped when the
// endpoint is disabled or its owner cannot see the event now; otherwise the event signed by the
// Standard Webhooks rules (standardwebhooks: `webhook-id` the event id, `webhook-timestamp`,
// `webhook-signature` with one `v1,…` per secret — two while a rotation overlaps) and sent. A 2xx
// succeeds; 410 fails it and disables the endpoint (`gone`); anything else is retried on the
// schedule (webhook-schedule.ts), and a delivery that spends it fails and disables an endpoint that
// failed the whole time (`failing`).
import { Webhook } from 'standardwebhooks';
import { Event } from '../../proto/gen/expertnet/communities/v1/communities_service.js';
import type { Lease } from '../kit/jobs/leased-worker.js';
import { createLeasedQueue, type LeasedRow, type LeasePolicy } from '../kit/jobs/leased-queue.js';
import type { CommunitiesContext } from './communities-context.js';
import { createWebhookAttemptsRepository, DELIVERIES, type DeliveryTarget, type Outcome } from './webhook-attempts.repository.js';
import { ownerMaySee } from './webhook-audience.js';
import { TEST_EVENT_TYPE } from './webhook-deliveries.repository.js';
import { retryDelayMs } from './webhook-schedule.js';
import { sendWebhook, type SendResult } from './webhook-send.js';

export interface DeliverySettings {
  /** An event's `data` as the REST API shows it (gateway/core/events.ts, handed in by the launcher). */
  render: (event: Event) => unknown;
  allowPrivate: boolean;
  /** Seconds between attempts (WEBHOOK_RETRY_SCHEDULE); the default schedule when unset. */
  retrySchedule?: readonly number[] | undefined;
  /** One attempt's deadline; webhook-send.ts's 15 s unless a suite shortens it. */
  timeoutMs?: number;
  policy: LeasePolicy;
}

/** The body: `{type, timestamp, data}` (the Standard Webhooks payload), the event's data as the API shows it. */
function bodyOf(t: DeliveryTarget, settings: DeliverySettings): string {
  if (t.event_type === TEST_EVENT_TYPE) {
    return JSON.stringify({ type: TEST_EVENT_TYPE, timestamp: t.created_at.toISOString(), data: { endpoint_id: t.endpoint_id, test: true } });
  }
  const event = Event.fromJSON(t.payload);
  return JSON.stringify({ type: t.event_type, timestamp: new Date(t.event_created_at!).toISOString(), data: settings.render(event) });
}

/** Standard Webhooks headers, signed with the secret and, while a rotation overlaps, the previous one. */
export function signedHeaders(t: Pick<DeliveryTarget, 'event_id' | 'secret' | 'previous_secret' | 'previous_until'>, body: string, at = new Date()): Record<string, string> {
  const secrets = [t.secret, ...(t.previous_secret && t.previous_until && new Date(t.previous_until) > at ? [t.previous_secret] : [])];
  return {
    'webhook-id': t.event_id,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': secrets.map((secret) => new Webhook(secret).sign(t.event_id, at, body)).join(' '),
  };
}

function outcomeOf(t: DeliveryTarget, result: SendResult, settings: DeliverySettings): Outcome {
  const now = Date.now();
  if (result.error === null) return { status: 'succeeded', retries: t.retries, nextAttemptAt: new Date(now), error: null };
  if (result.statusCode === 410) return { status: 'failed', retries: t.retries, nextAttemptAt: new Date(now), error: 'answered 410 Gone: the endpoint is disabled', disable: 'gone' };
  const delay = retryDelayMs(t.retries + 1, settings.retrySchedule ?? undefined);
  if (delay !== undefined) return { status: 'pending', retries: t.retries + 1, nextAttemptAt: new Date(now + delay), error: result.error };
  return { status: 'failed', retries: t.retries + 1, nextAttemptAt: new Date(now), error: `${result.error}; the retry schedule is spent`, disable: 'failing' };
}

const skipped = (t: DeliveryTarget, error: string): Outcome => ({ status: 'skipped', retries: t.retries, nextAttemptAt: new Date(), error });

/** Why the delivery is not to be sent now (the endpoint disabled, the event out of its owner's sight), if it is not. */
async function reasonToSkip(context: CommunitiesContext, t: DeliveryTarget, requestId: string): Promise<string | undefined> {
  if (t.endpoint_status !== 'enabled') return 'the endpoint is disabled';
  if (t.event_type === TEST_EVENT_TYPE) return undefined;
  const event = t.type && { type: t.type, user_id: t.user_id, community_id: t.community_id, owner_type: t.event_owner_type, owner_id: t.event_owner_id };
  const sees = event ? await ownerMaySee(context, { type: t.owner_type, id: t.owner_id }, event, requestId) : false;
  return sees ? undefined : 'the endpoint’s owner cannot see this event now';
}

/** Works one claimed delivery to its outcome, under the claim `lease`. */
export async function deliver(context: CommunitiesContext, settings: DeliverySettings, job: LeasedRow, lease: Lease): Promise<void> {
  const db = context.deps.db;
  const target = await createWebhookAttemptsRepository(db).target(job.id);
  if (!target) return;
  let outcome: Outcome;
  let attempt: SendResult | undefined;
  const skip = await reasonToSkip(context, target, `webhook:${job.id}`);
  if (skip) outcome = skipped(target, skip);
  else {
    // A body that cannot be made is a defect, not the receiver's doing: logged, and the claim left to expire.
    let body: string;
    try {
      body = bodyOf(target, settings);
    } catch (error) {
      context.deps.logger.error({ err: error, deliveryId: job.id }, 'webhook body could not be made');
      throw error;
    }
    if (lease.lost || lease.stopping) return;
    const timeout = settings.timeoutMs === undefined ? {} : { timeoutMs: settings.timeoutMs };
    attempt = await sendWebhook({ url: target.url, headers: signedHeaders(target, body), body, allowPrivate: settings.allowPrivate, ...timeout });
    outcome = outcomeOf(target, attempt, settings);
  }
  await db.transaction(async (tx) => {
    if (!(await createWebhookAttemptsRepository(tx).record(job.id, lease.token, outcome, attempt))) return;
    await createLeasedQueue(tx, DELIVERIES, settings.policy).finish(job.id, lease.token, {
      status: outcome.status,
      retries: outcome.retries,
      next_attempt_at: outcome.nextAttemptAt.toISOString(),
      error: outcome.error,
    });
  });
}
