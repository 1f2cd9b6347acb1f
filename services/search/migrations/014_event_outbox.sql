-- The search's events waiting for the event log (docs/WEBHOOKS.md): a job's end writes its event
-- here in the same statement (search.completed, search.failed); the relay moves it into the log the
-- communities service keeps and deletes the row. A job is not purged while its event waits.
CREATE TABLE search.event_outbox (
  id         text PRIMARY KEY,
  type       text NOT NULL,
  subject_id text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX event_outbox_subject ON search.event_outbox (subject_id);
