-- Communities, profiles, memberships and versioned write attestations.
CREATE TABLE communities.communities (
  id          text PRIMARY KEY,
  name        text NOT NULL,
  owner_type  text NOT NULL CHECK (owner_type IN ('user', 'organization')),
  owner_id    text NOT NULL,
  archived    boolean NOT NULL DEFAULT false,
  created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX communities_owner ON communities.communities (owner_type, owner_id);

-- Every change to a community's API-write setting is a new version: who, when, on or off.
CREATE TABLE communities.write_attestations (
  community_id text NOT NULL REFERENCES communities.communities (id) ON DELETE CASCADE,
  version      integer NOT NULL CHECK (version > 0),
  enabled      boolean NOT NULL,
  actor        text NOT NULL,
  created_at   timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (community_id, version)
);

CREATE TABLE communities.profiles (
  id            text PRIMARY KEY,
  -- Claimed by this user; NULL for an unclaimed placeholder.
  user_id       text UNIQUE,
  placeholder_user_id text,
  public        boolean NOT NULL DEFAULT false,
  name          text NOT NULL,
  headline      text,
  bio           text,
  organization  text,
  location      text,
  email         text,
  linkedin_url  text,
  orcid         text,
  avatar_url    text,
  created_at    timestamptz NOT NULL DEFAULT now(),
  updated_at    timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX profiles_email ON communities.profiles (lower(email));
CREATE INDEX profiles_orcid ON communities.profiles (orcid);
CREATE INDEX profiles_linkedin ON communities.profiles (lower(linkedin_url));

CREATE TABLE communities.memberships (
  community_id      text NOT NULL REFERENCES communities.communities (id) ON DELETE CASCADE,
  profile_id        text NOT NULL REFERENCES communities.profiles (id) ON DELETE CASCADE,
  role              text NOT NULL CHECK (role IN ('member', 'admin', 'owner')),
  joined_at         timestamptz NOT NULL DEFAULT now(),
  -- The community's identifier for this person; erased with the membership.
  source_identifier text NOT NULL,
  PRIMARY KEY (community_id, profile_id)
);
CREATE INDEX memberships_profile ON communities.memberships (profile_id);
-- The roster's keyset order.
CREATE INDEX memberships_roster ON communities.memberships (community_id, joined_at, profile_id);
