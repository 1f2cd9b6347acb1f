-- Who switched API writes and who decided a consent request, by name: the settings web app shows
-- a fellow manager of a community by the name they had when they acted (the app reads no other
-- user's record). The user id stays in actor / resolved_by. Rows written before this column, and
-- those of an operator or a seed, keep '' and are shown as before.
ALTER TABLE communities.write_attestations ADD COLUMN actor_name text NOT NULL DEFAULT '';
ALTER TABLE communities.consent_requests ADD COLUMN resolved_by_name text NOT NULL DEFAULT '';
