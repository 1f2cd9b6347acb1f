// The webhook delivery worker of the communities service (docs/WEBHOOKS.md "Delivery"): deliveries
// are durable jobs in communities.webhook_deliveries, worked under leases by every replica
// (services/kit/jobs/leased-worker.ts). A process killed mid-attempt leaves its claim to expire,
// and another claim (this process restarted, or another replica) attempts the delivery again: at
// least once, never lost. A process started without delivery settings (WEBHOOK_DELIVERY=off)
// records deliveries and sends none.
import { createLeasedQueue, type LeasedRow } from '../kit/jobs/leased-queue.js';
import { createLeasedWorker } from '../kit/jobs/leased-worker.js';
import type { CommunitiesContext } from './communities-context.js';
import { DELIVERIES } from './webhook-attempts.repository.js';
import { deliver, type DeliverySettings } from './webhook-delivery.js';

export type WebhookDeliveryOptions = Omit<DeliverySettings, 'policy' | 'allowPrivate'> & {
  /** A claim's lease without a heartbeat (default 10 s; heartbeats keep a long attempt's). */
  leaseMs?: number;
  /** Deliveries attempted at once in this process (default 8). */
  capacity?: number;
  tickMs?: number;
};

/** Claims are not the schedule: a claim whose process died is not an attempt the receiver saw fail. */
const MAX_CLAIMS = 1000;

export function startWebhookDelivery(context: CommunitiesContext, allowPrivate: boolean, options: WebhookDeliveryOptions | undefined): { stop(): Promise<void> } {
  if (!options) return { stop: async () => undefined };
  const policy = { leaseMs: options.leaseMs ?? 10_000, maxAttempts: MAX_CLAIMS };
  const settings: DeliverySettings = { ...options, allowPrivate, policy };
  const worker = createLeasedWorker<LeasedRow, void>({
    queue: createLeasedQueue<LeasedRow>(context.deps.db, DELIVERIES, policy),
    logger: context.deps.logger,
    // A finished delivery frees a slot: claim again now rather than at the next tick, so a backlog
    // drains as fast as receivers answer instead of `capacity` deliveries per tick.
    work: (job, lease) => deliver(context, settings, job, lease).finally(() => void worker.tick()),
    capacity: options.capacity ?? 8,
    tickMs: options.tickMs ?? 500,
  });
  worker.start();
  void worker.tick();
  return { stop: () => worker.stop() };
}
