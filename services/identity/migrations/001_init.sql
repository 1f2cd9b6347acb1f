-- Users, organizations and API keys. Keys keep only a keyed hash of the secret and a display prefix.
CREATE TABLE identity.users (
  id            text PRIMARY KEY,
  email         text,
  name          text NOT NULL,
  plan          text NOT NULL DEFAULT 'free' CHECK (plan IN ('free', 'trial', 'paid')),
  jit_consent   boolean NOT NULL DEFAULT false,
  -- Auth accounts created for unclaimed placeholder profiles (removable on erasure).
  placeholder_profile_id text UNIQUE,
  created_at    timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX users_email_key ON identity.users (lower(email)) WHERE email IS NOT NULL AND placeholder_profile_id IS NULL;

CREATE TABLE identity.organizations (
  id          text PRIMARY KEY,
  name        text NOT NULL,
  jit_consent boolean NOT NULL DEFAULT false,
  created_at  timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE identity.organization_members (
  organization_id text NOT NULL REFERENCES identity.organizations (id) ON DELETE CASCADE,
  user_id         text NOT NULL REFERENCES identity.users (id) ON DELETE CASCADE,
  role            text NOT NULL CHECK (role IN ('member', 'admin', 'owner')),
  joined_at       timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (organization_id, user_id)
);
CREATE INDEX organization_members_user ON identity.organization_members (user_id);

CREATE TABLE identity.api_keys (
  id                text PRIMARY KEY,
  secret_hash       text NOT NULL UNIQUE,
  display_prefix    text NOT NULL,
  environment       text NOT NULL CHECK (environment IN ('live', 'test')),
  owner_type        text NOT NULL CHECK (owner_type IN ('user', 'organization')),
  owner_id          text NOT NULL,
  minted_by_user_id text REFERENCES identity.users (id),
  scopes            text[] NOT NULL,
  -- NULL: no allowlist. An array (even empty) narrows reach to its communities.
  allowlist         text[],
  rate_tier         text NOT NULL CHECK (rate_tier IN ('restricted', 'standard')),
  requested_rate    integer NOT NULL CHECK (requested_rate > 0),
  created_at        timestamptz NOT NULL DEFAULT now(),
  last_used_at      timestamptz,
  revoked_at        timestamptz
);
CREATE INDEX api_keys_owner ON identity.api_keys (owner_type, owner_id);
CREATE INDEX api_keys_minted_by ON identity.api_keys (minted_by_user_id);

-- Requests per key per UTC day, written in batches (not one write per request).
CREATE TABLE identity.key_usage_daily (
  key_id   text NOT NULL REFERENCES identity.api_keys (id) ON DELETE CASCADE,
  day      date NOT NULL,
  requests bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (key_id, day)
);
