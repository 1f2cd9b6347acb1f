-- Webhook delivery (docs/WEBHOOKS.md "Delivery"). Each recorded event makes one delivery per enabled
-- endpoint subscribed to its type, in the event's transaction; deliveries are durable jobs worked
-- under leases (services/kit/jobs/leased-queue.ts): `attempts` counts claims and fences a claim's
-- writes, `retries` counts the failed attempts of the current run of the retry schedule, and a
-- waiting delivery is claimable once `next_attempt_at` has passed. Each HTTP attempt is logged in
-- webhook_delivery_attempts.

-- Why a disabled endpoint is: its owner disabled it, it answered 410, or a delivery failed its
-- whole retry schedule.
ALTER TABLE communities.webhook_endpoints ADD COLUMN disabled_reason text
  CHECK (disabled_reason IN ('manual', 'gone', 'failing'));
UPDATE communities.webhook_endpoints SET disabled_reason = 'manual' WHERE status = 'disabled';

-- A search event goes to the endpoints of the owner of the credential that started the search.
ALTER TABLE communities.events ADD COLUMN owner_type text;
ALTER TABLE communities.events ADD COLUMN owner_id text;

CREATE TABLE communities.webhook_deliveries (
  id              text PRIMARY KEY,
  endpoint_id     text NOT NULL REFERENCES communities.webhook_endpoints (id) ON DELETE CASCADE,
  event_id        text NOT NULL,
  event_type      text NOT NULL,
  status          text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'running', 'succeeded', 'failed', 'skipped')),
  attempts        integer NOT NULL DEFAULT 0,
  retries         integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL DEFAULT now(),
  lease_until     timestamptz,
  error           text,
  created_at      timestamptz NOT NULL DEFAULT now(),
  finished_at     timestamptz,
  UNIQUE (endpoint_id, event_id)
);
CREATE INDEX webhook_deliveries_claimable ON communities.webhook_deliveries (created_at) WHERE status IN ('pending', 'running');
CREATE INDEX webhook_deliveries_by_endpoint ON communities.webhook_deliveries (endpoint_id, created_at DESC, id DESC);

CREATE TABLE communities.webhook_delivery_attempts (
  delivery_id      text NOT NULL REFERENCES communities.webhook_deliveries (id) ON DELETE CASCADE,
  attempt          integer NOT NULL,
  at               timestamptz NOT NULL DEFAULT now(),
  status_code      integer,
  latency_ms       integer NOT NULL,
  error            text,
  response_excerpt text NOT NULL DEFAULT '',
  PRIMARY KEY (delivery_id, attempt)
);
