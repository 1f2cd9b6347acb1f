-- Search jobs (docs/SEARCH.md). A job is fenced to the credential that started it; the scope is
-- decided once, at start: community_ids are the corpora searched (already authorized, allowlist
-- applied), reach_ids the caller's read reach then (what shared_communities may name).
-- A worker holds a job through a lease (lease_until) and a fencing token (attempts): a worker whose
-- lease ran out can no longer store a result once another claim has taken the job over.
CREATE TABLE search.search_jobs (
  id                 text PRIMARY KEY,
  credential_id      text NOT NULL,
  caller             jsonb NOT NULL,
  query              text NOT NULL,
  scope              text NOT NULL CHECK (scope IN ('community', 'all', 'public')),
  named_community_id text,
  community_ids      text[] NOT NULL,
  include_public     boolean NOT NULL,
  reach_ids          text[] NOT NULL,
  result_limit       integer NOT NULL CHECK (result_limit BETWEEN 1 AND 50),
  payer_type         text,
  payer_id           text,
  status             text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'running', 'complete', 'failed')),
  matches            jsonb,
  error              text,
  attempts           integer NOT NULL DEFAULT 0,
  lease_until        timestamptz,
  charged_at         timestamptz,
  created_at         timestamptz NOT NULL DEFAULT now(),
  finished_at        timestamptz,
  expires_at         timestamptz
);
CREATE INDEX search_jobs_claimable ON search.search_jobs (created_at) WHERE status IN ('pending', 'running');
CREATE INDEX search_jobs_expiry ON search.search_jobs (expires_at) WHERE expires_at IS NOT NULL;
CREATE INDEX search_jobs_uncharged ON search.search_jobs (finished_at) WHERE status = 'complete' AND charged_at IS NULL;
