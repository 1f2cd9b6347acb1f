-- A self run's charge (metered when it starts) is its one person's: the item carries it, so a run's
-- credits_charged is the sum of its items' (runs.repository.ts markMetered). Runs metered before
-- this migration kept it on the run only.
UPDATE enrichment.run_items i SET credits_charged = r.metered_credits
  FROM enrichment.runs r
 WHERE r.id = i.run_id AND r.kind = 'self' AND r.metered AND i.credits_charged = 0;
