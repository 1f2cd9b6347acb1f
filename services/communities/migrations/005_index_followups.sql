-- A bulk add's search indexing, made durable (services/communities/index-followup.ts): each item
-- that places a person writes a row here in the transaction of its membership, and the row is
-- deleted once the person's document in that community is indexed. The add indexes right after its
-- commits; when the search service cannot be reached (or the process dies first), the sweeper
-- retries what is left, so a person in the roster always ends up in the search corpus.
CREATE TABLE communities.index_followups (
  community_id text NOT NULL,
  profile_id   text NOT NULL,
  attempts     integer NOT NULL DEFAULT 0,
  last_error   text,
  created_at   timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (community_id, profile_id)
);
CREATE INDEX index_followups_created_at ON communities.index_followups (created_at);
