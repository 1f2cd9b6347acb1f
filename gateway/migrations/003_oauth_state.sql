-- The OAuth authorization server's state (docs/OAUTH.md "The authorization server"): registered
-- clients, authorization codes, refresh tokens, grants, sessions and interactions, kept by
-- oidc-provider through its adapter (gateway/settings/oauth-state.ts), so a restart loses nothing
-- and every gateway replica sees the same state. One row per model and id; the payload is the
-- provider's own, as JSON.
CREATE TABLE edge.oauth_state (
  model       text        NOT NULL,
  id          text        NOT NULL,
  payload     jsonb       NOT NULL,
  -- The grant a token or code belongs to (a grant's own row too): revoking a grant deletes them all.
  grant_id    text,
  uid         text,
  user_code   text,
  -- Past this the row is not found, and purged.
  expires_at  timestamptz,
  -- A consumed code or rotated refresh token: found, marked consumed, so its reuse is detected.
  consumed_at timestamptz,
  PRIMARY KEY (model, id)
);
CREATE INDEX oauth_state_grant ON edge.oauth_state (grant_id) WHERE grant_id IS NOT NULL;
CREATE INDEX oauth_state_uid ON edge.oauth_state (uid) WHERE uid IS NOT NULL;
CREATE INDEX oauth_state_user_code ON edge.oauth_state (user_code) WHERE user_code IS NOT NULL;
CREATE INDEX oauth_state_expires ON edge.oauth_state (expires_at) WHERE expires_at IS NOT NULL;
