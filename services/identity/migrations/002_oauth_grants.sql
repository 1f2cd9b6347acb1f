-- OAuth grants: what a user consented to for one client. Access tokens (JWTs) name a grant in
-- their `grant_id` claim and are re-checked against it on every request, so revoking a grant takes
-- effect on the next request. The rate tier is decided at creation, like a key's.
CREATE TABLE identity.oauth_grants (
  id             text PRIMARY KEY,
  user_id        text NOT NULL REFERENCES identity.users (id) ON DELETE CASCADE,
  client_id      text NOT NULL,
  scopes         text[] NOT NULL CHECK (cardinality(scopes) > 0),
  rate_tier      text NOT NULL CHECK (rate_tier IN ('restricted', 'standard')),
  requested_rate integer NOT NULL CHECK (requested_rate > 0),
  created_at     timestamptz NOT NULL DEFAULT now(),
  last_used_at   timestamptz,
  revoked_at     timestamptz
);
CREATE INDEX oauth_grants_user ON identity.oauth_grants (user_id, id);

-- Requests per grant per UTC day, written in batches like key_usage_daily. A table of its own:
-- key_usage_daily.key_id references api_keys, and that foreign key stays.
CREATE TABLE identity.grant_usage_daily (
  grant_id text NOT NULL REFERENCES identity.oauth_grants (id) ON DELETE CASCADE,
  day      date NOT NULL,
  requests bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (grant_id, day)
);
