-- The last step of a community-scoped erasure (services/communities/erasure.ts): once the
-- membership is gone, this community's search documents and enrichment data of the person are
-- erased once more, for what an index call or an enrichment run wrote while the erasure ran. The
-- row is written in the transaction that removes the membership and deleted when that second erase
-- is done, so a crash or an unreachable service between the two delays it (the sweeper retries)
-- but never loses it.
CREATE TABLE communities.erasure_followups (
  community_id text NOT NULL,
  profile_id   text NOT NULL,
  attempts     integer NOT NULL DEFAULT 0,
  last_error   text,
  created_at   timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (community_id, profile_id)
);
