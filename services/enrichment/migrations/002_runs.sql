-- Enrichment runs (docs/ENRICHMENT.md). A run is a durable job worked by any replica under a lease:
-- `attempts` is bumped by each claim and fences every write of that claim, so a worker that lost its
-- lease can never overwrite the work of the one that took over.
CREATE TABLE enrichment.runs (
  id              text PRIMARY KEY,
  kind            text NOT NULL CHECK (kind IN ('self', 'community')),
  -- Community runs: the community. Self runs: the caller's user and profile.
  community_id    text,
  user_id         text,
  profile_id      text,
  credential_id   text NOT NULL,
  -- The caller who started the run (JSON of expertnet.common.v1.Caller): self runs meter as them.
  caller          jsonb NOT NULL,
  depth           text NOT NULL CHECK (depth IN ('quick', 'standard', 'deep')),
  -- Who pays each enriched profile (community runs: resolved by billing at start).
  payer_type      text,
  payer_id        text,
  status          text NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'running', 'succeeded', 'failed')),
  error           text,
  -- Self runs: billing metered the run (a charge, or the free-plan claim) and how much it charged.
  metered         boolean NOT NULL DEFAULT false,
  metered_credits bigint NOT NULL DEFAULT 0,
  attempts        integer NOT NULL DEFAULT 0,
  lease_until     timestamptz,
  created_at      timestamptz NOT NULL DEFAULT now(),
  started_at      timestamptz,
  finished_at     timestamptz,
  CHECK ((kind = 'community') = (community_id IS NOT NULL)),
  CHECK ((kind = 'self') = (user_id IS NOT NULL AND profile_id IS NOT NULL))
);
CREATE INDEX runs_open ON enrichment.runs (created_at) WHERE status IN ('queued', 'running');
CREATE INDEX runs_by_community ON enrichment.runs (community_id, id) WHERE community_id IS NOT NULL;

-- One row per person of a run. A succeeded item is charged once by the reference
-- `enrichment_<depth>:<run_id>:<profile_id>`; `charged` records that billing took it, `indexed` that
-- the search document carries the new enrichment text (both retried after a crash).
CREATE TABLE enrichment.run_items (
  run_id          text NOT NULL REFERENCES enrichment.runs (id) ON DELETE CASCADE,
  profile_id      text NOT NULL,
  status          text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'succeeded', 'failed', 'skipped')),
  reason          text,
  credits_charged bigint NOT NULL DEFAULT 0,
  charged         boolean NOT NULL DEFAULT false,
  indexed         boolean NOT NULL DEFAULT false,
  search_text     text,
  finished_at     timestamptz,
  PRIMARY KEY (run_id, profile_id)
);
CREATE INDEX run_items_pending ON enrichment.run_items (run_id, profile_id) WHERE status = 'pending';
CREATE INDEX run_items_unsettled ON enrichment.run_items (run_id) WHERE status = 'succeeded' AND (NOT charged OR NOT indexed);

-- A person's own enrichment (self-enrich), shown on their profile record.
CREATE TABLE enrichment.self_enrichment (
  user_id     text PRIMARY KEY,
  profile_id  text NOT NULL,
  depth       text NOT NULL CHECK (depth IN ('quick', 'standard', 'deep')),
  data        jsonb NOT NULL,
  enriched_at timestamptz NOT NULL DEFAULT now()
);
