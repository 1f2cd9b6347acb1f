-- Per-community enrichment data for a person (read by the member read, erased by erasure).
CREATE TABLE enrichment.member_enrichment (
  community_id text NOT NULL,
  profile_id   text NOT NULL,
  depth        text NOT NULL CHECK (depth IN ('quick', 'standard', 'deep')),
  data         jsonb NOT NULL,
  enriched_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (community_id, profile_id)
);
