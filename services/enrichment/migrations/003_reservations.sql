-- Who a community run holds (docs/ENRICHMENT.md "Overlapping runs"): while an item of a run is
-- pending, its person is reserved for that run at that community and tier. The primary key is the
-- guarantee: two runs can never both hold one person at one tier, so they can never both charge
-- them. A run claims its people in the transaction that creates its items; a reservation goes
-- with its item (in the same statement that ends the item), and with its run (cascade). A run
-- resumed by another worker after a crash keeps its reservations: they belong to the run.
CREATE TABLE enrichment.reservations (
  community_id text NOT NULL,
  profile_id   text NOT NULL,
  depth        text NOT NULL CHECK (depth IN ('quick', 'standard', 'deep')),
  run_id       text NOT NULL REFERENCES enrichment.runs (id) ON DELETE CASCADE,
  reserved_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (community_id, profile_id, depth)
);
CREATE INDEX reservations_by_run ON enrichment.reservations (run_id, profile_id);
