-- Self-enrich metering: the last free (not charged) self-enrich of each user, which starts the
-- 30-day cooldown. One row per user, claimed atomically (INSERT … ON CONFLICT DO UPDATE … WHERE the
-- cooldown has passed), so two concurrent free self-enriches let exactly one through.
CREATE TABLE billing.free_self_enrichments (
  user_id      text PRIMARY KEY,
  -- The run that used the free self-enrich: metering the same run again is not a second use.
  run_id       text NOT NULL,
  enriched_at  timestamptz NOT NULL,
  credential_id text
);
