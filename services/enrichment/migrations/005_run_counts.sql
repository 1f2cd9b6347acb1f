-- A run's counts (its poll's `counts` and `credits_charged`), kept beside its items. Every poll
-- counted the run's items by status, a scan of all of them (5–9 ms per poll at 10,000 people on
-- PostgreSQL, growing with the run), where this is one row. Statement triggers on the items keep
-- it exact in the writing transaction, whichever statement writes them — the items of a new run, a
-- batch succeeding, charges recorded, an erasure's skips, a stopped run's failures — so no writer
-- can change an item without its run's counts following. Each statement adds the rows it wrote:
-- their new values counted in, their old ones out; one that changes nothing counted (items marked
-- indexed) writes nothing here.
CREATE TABLE enrichment.run_counts (
  run_id    text PRIMARY KEY REFERENCES enrichment.runs (id) ON DELETE CASCADE,
  total     bigint NOT NULL DEFAULT 0,
  pending   bigint NOT NULL DEFAULT 0,
  succeeded bigint NOT NULL DEFAULT 0,
  failed    bigint NOT NULL DEFAULT 0,
  skipped   bigint NOT NULL DEFAULT 0,
  credits   bigint NOT NULL DEFAULT 0
);

CREATE FUNCTION enrichment.count_run_items() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  -- The rows the statement wrote, each with +1 (counted in) or -1 (counted out).
  changed text := CASE TG_OP
    WHEN 'INSERT' THEN 'SELECT run_id, status, credits_charged, 1 AS sign FROM new_items'
    WHEN 'UPDATE' THEN 'SELECT run_id, status, credits_charged, 1 AS sign FROM new_items
                        UNION ALL SELECT run_id, status, credits_charged, -1 FROM old_items'
    ELSE 'SELECT run_id, status, credits_charged, -1 AS sign FROM old_items' END;
BEGIN
  -- In run order, so that two writers lock the counts they share in the same order; a run being
  -- deleted (its items go with it) has no counts left to keep.
  EXECUTE format($sql$
    INSERT INTO enrichment.run_counts AS c (run_id, total, pending, succeeded, failed, skipped, credits)
    SELECT d.* FROM (
      SELECT run_id, sum(sign)::int8 AS total,
             coalesce(sum(sign) FILTER (WHERE status = 'pending'), 0)::int8 AS pending,
             coalesce(sum(sign) FILTER (WHERE status = 'succeeded'), 0)::int8 AS succeeded,
             coalesce(sum(sign) FILTER (WHERE status = 'failed'), 0)::int8 AS failed,
             coalesce(sum(sign) FILTER (WHERE status = 'skipped'), 0)::int8 AS skipped,
             coalesce(sum(sign * credits_charged), 0)::int8 AS credits
        FROM (%s) AS changed GROUP BY run_id) AS d
     WHERE (d.total, d.pending, d.succeeded, d.failed, d.skipped, d.credits) <> (0, 0, 0, 0, 0, 0)
       AND EXISTS (SELECT 1 FROM enrichment.runs r WHERE r.id = d.run_id)
     ORDER BY d.run_id
    ON CONFLICT (run_id) DO UPDATE SET
      total = c.total + EXCLUDED.total, pending = c.pending + EXCLUDED.pending, succeeded = c.succeeded + EXCLUDED.succeeded,
      failed = c.failed + EXCLUDED.failed, skipped = c.skipped + EXCLUDED.skipped, credits = c.credits + EXCLUDED.credits
  $sql$, changed);
  RETURN NULL;
END $$;

CREATE TRIGGER run_items_counted_in AFTER INSERT ON enrichment.run_items
  REFERENCING NEW TABLE AS new_items FOR EACH STATEMENT EXECUTE FUNCTION enrichment.count_run_items();
CREATE TRIGGER run_items_counted_again AFTER UPDATE ON enrichment.run_items
  REFERENCING OLD TABLE AS old_items NEW TABLE AS new_items FOR EACH STATEMENT EXECUTE FUNCTION enrichment.count_run_items();
CREATE TRIGGER run_items_counted_out AFTER DELETE ON enrichment.run_items
  REFERENCING OLD TABLE AS old_items FOR EACH STATEMENT EXECUTE FUNCTION enrichment.count_run_items();

-- The counts of the runs already there.
INSERT INTO enrichment.run_counts (run_id, total, pending, succeeded, failed, skipped, credits)
SELECT run_id, count(*), count(*) FILTER (WHERE status = 'pending'), count(*) FILTER (WHERE status = 'succeeded'),
       count(*) FILTER (WHERE status = 'failed'), count(*) FILTER (WHERE status = 'skipped'), coalesce(sum(credits_charged), 0)
  FROM enrichment.run_items GROUP BY run_id;
