-- The request log: the API and MCP requests users' keys and OAuth grants made, as the edge reports
-- them after answering (RecordRequests, in batches). user_id is read from the credential when the
-- row is written (the key's minting user, the grant's user), so a list is fenced by one column.
-- Kept 7 days and the newest 10,000 per user: a periodic sweep deletes the rest
-- (request-log-retention.ts), and reads never reach past 7 days meanwhile.
CREATE TABLE identity.request_log (
  id              bigserial PRIMARY KEY,
  user_id         text NOT NULL REFERENCES identity.users (id) ON DELETE CASCADE,
  credential_id   text NOT NULL,
  credential_kind text NOT NULL CHECK (credential_kind IN ('api_key', 'oauth')),
  at              timestamptz NOT NULL,
  surface         text NOT NULL,
  method          text NOT NULL,
  path            text NOT NULL,
  tool            text NOT NULL DEFAULT '',
  status          int NOT NULL,
  latency_ms      double precision NOT NULL,
  request_id      text NOT NULL
);
-- A user's page, newest first (and the per-user bound); the age sweep.
CREATE INDEX request_log_user_newest ON identity.request_log (user_id, at DESC, id DESC);
CREATE INDEX request_log_at ON identity.request_log (at);
