-- A re-index run's progress, for the operator's CLI to show while it runs (GetReindexRun): the
-- documents the run expects (given by the communities service when it opens the run), those its
-- batches have indexed so far, and how many of them the active embedder (re-)embedded — after a
-- change of embedder, all of them. Each batch adds its counts in its own short statement.
ALTER TABLE search.reindex_runs
  ADD COLUMN expected_documents bigint NOT NULL DEFAULT 0,
  ADD COLUMN indexed_documents bigint NOT NULL DEFAULT 0,
  ADD COLUMN embedded_documents bigint NOT NULL DEFAULT 0,
  ADD COLUMN updated_at timestamptz NOT NULL DEFAULT now();
