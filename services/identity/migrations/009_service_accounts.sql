-- Service accounts: credentials of machines. Each is owned by a user or an organization (who pays
-- for what it does), holds explicit scopes and an explicit, non-empty community allowlist (never
-- "every community": there is no NULL here, unlike an API key's allowlist), and authenticates to
-- the authorization server's client-credentials grant with a secret kept only as a keyed hash
-- (HMAC-SHA256 with the server pepper, like API keys). Its id is its OAuth client_id. Tokens name
-- it in `sub` and are re-checked against this row on every call, so a revocation takes effect on
-- the next call.
CREATE TABLE identity.service_accounts (
  id             text PRIMARY KEY,
  name           text NOT NULL,
  owner_type     text NOT NULL CHECK (owner_type IN ('user', 'organization')),
  owner_id       text NOT NULL,
  scopes         text[] NOT NULL CHECK (cardinality(scopes) > 0),
  community_ids  text[] NOT NULL CHECK (cardinality(community_ids) > 0),
  secret_hash    text NOT NULL UNIQUE,
  rate_tier      text NOT NULL CHECK (rate_tier IN ('restricted', 'standard')),
  requested_rate integer NOT NULL CHECK (requested_rate > 0),
  created_by     text NOT NULL,
  created_at     timestamptz NOT NULL DEFAULT now(),
  last_used_at   timestamptz,
  revoked_at     timestamptz
);
CREATE INDEX service_accounts_owner ON identity.service_accounts (owner_type, owner_id, id);
