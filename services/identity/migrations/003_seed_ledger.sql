-- The seed ledger (docs/API-DECISIONS.md "Seed files"): what each seed record looked like when it was
-- last applied. Applying a file again skips a record whose fingerprint is unchanged, and a record
-- known here that no longer exists was removed by the system (an erasure) and is not brought back.
CREATE TABLE identity.seed_records (
  kind        text NOT NULL,
  record_id   text NOT NULL,
  fingerprint text NOT NULL,
  applied_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (kind, record_id)
);

-- Whether (and by whom first) the store was seeded: a store seeded from a file starts again
-- without SEED_FILE and never receives the demo data set. One row at most.
CREATE TABLE identity.store_seeded (
  only_row   boolean PRIMARY KEY DEFAULT true CHECK (only_row),
  seeded_by  text NOT NULL,
  seeded_at  timestamptz NOT NULL DEFAULT now()
);
