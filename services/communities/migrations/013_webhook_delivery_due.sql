-- Deliveries are claimed soonest due first (services/communities/webhook-attempts.repository.ts):
-- with many deliveries waiting for a later retry (a receiver down for hours), a claim reads the due
-- ones at the head of this index instead of walking every waiting delivery in creation order.
DROP INDEX communities.webhook_deliveries_claimable;
CREATE INDEX webhook_deliveries_due ON communities.webhook_deliveries (next_attempt_at) WHERE status IN ('pending', 'running');
