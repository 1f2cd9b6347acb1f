-- The search corpus: one document per community membership, and one per public claimed profile
-- (community_id = '' marks the public corpus).
CREATE TABLE search.documents (
  community_id    text NOT NULL,
  profile_id      text NOT NULL,
  user_id         text,
  name            text NOT NULL,
  headline        text,
  bio             text,
  organization    text,
  location        text,
  avatar_url      text,
  enrichment_text text,
  updated_at      timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (community_id, profile_id)
);
CREATE INDEX documents_profile ON search.documents (profile_id);
