-- A full re-index is a mark and sweep (docs/SEARCH.md "Corpus upkeep"): upserts alone never take
-- out a document whose person left the community, or whose profile stopped being public and
-- claimed, behind the communities service's back.
--   reindex_runs: one row per run (BeginReindex); its id is the run's mark, increasing.
--   touched_run:  the newest run that existed when a document was last written. Every upsert sets
--                 it — the run's own batches and every other write (a member added while the run
--                 goes on) alike — so PruneDocuments(run) deletes exactly the documents written
--                 before the run began and not since. A counter, not a clock: no clock skew can
--                 sweep a fresh document. Existing documents start at 0, older than any run.
CREATE TABLE search.reindex_runs (
  id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  started_at timestamptz NOT NULL DEFAULT now(),
  pruned_at  timestamptz,
  removed    integer
);

ALTER TABLE search.documents ADD COLUMN touched_run bigint NOT NULL DEFAULT 0;
