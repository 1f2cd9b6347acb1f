-- The event log (docs/WEBHOOKS.md): every recorded state change of a search, an enrichment run or
-- a roster, once. Communities writes its own roster events here in the change's transaction;
-- search and enrichment write theirs to an outbox in their own schema in the change's transaction
-- and relay them here (RecordEvents), keyed by the outbox row's id, so a relay sent twice records
-- one row. Who may see an event is decided at read time from the columns below: the key that
-- started a search (credential_id), the person a self run is about (user_id), or the community
-- (community_id) of a community run or a roster change.
CREATE TABLE communities.events (
  id            text PRIMARY KEY,
  type          text NOT NULL,
  created_at    timestamptz NOT NULL,
  credential_id text,
  user_id       text,
  community_id  text,
  -- The Event message (proto3 JSON): the resource as its own read shows it.
  payload       jsonb NOT NULL,
  recorded_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX events_by_credential ON communities.events (credential_id, created_at DESC, id DESC) WHERE credential_id IS NOT NULL;
CREATE INDEX events_by_user ON communities.events (user_id, created_at DESC, id DESC) WHERE user_id IS NOT NULL;
CREATE INDEX events_by_community ON communities.events (community_id, created_at DESC, id DESC) WHERE community_id IS NOT NULL;
