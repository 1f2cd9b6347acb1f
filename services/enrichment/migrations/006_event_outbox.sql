-- The runs' events waiting for the event log (docs/WEBHOOKS.md): a run's end writes its event here
-- in the same statement (enrichment_run.succeeded / .failed, self_enrichment_run.succeeded /
-- .failed); the relay moves it into the log the communities service keeps and deletes the row.
CREATE TABLE enrichment.event_outbox (
  id         text PRIMARY KEY,
  type       text NOT NULL,
  subject_id text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
