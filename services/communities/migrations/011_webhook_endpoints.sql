-- Webhook endpoints (docs/WEBHOOKS.md): each belongs to the owner of the credential that made it
-- (owner_type user or organization) and receives the event types it names. The secret signs
-- deliveries; after a rotation the previous one keeps signing beside it until previous_until.
CREATE TABLE communities.webhook_endpoints (
  id              text PRIMARY KEY,
  owner_type      text NOT NULL CHECK (owner_type IN ('user', 'organization')),
  owner_id        text NOT NULL,
  url             text NOT NULL,
  events          text[] NOT NULL,
  description     text,
  status          text NOT NULL DEFAULT 'enabled' CHECK (status IN ('enabled', 'disabled')),
  secret          text NOT NULL,
  previous_secret text,
  previous_until  timestamptz,
  created_at      timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX webhook_endpoints_by_owner ON communities.webhook_endpoints (owner_type, owner_id, created_at DESC);
