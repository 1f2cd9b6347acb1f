-- Follow-ups that fail wait before their next attempt, longer each time (2^attempts seconds, at
-- most an hour: services/communities/followup-backoff.ts), and the sweeper takes the rows due
-- soonest first. Without it a few rows that keep failing (a search service refusing one person's
-- document, say) came first in every sweep's batch by age, and were retried every few seconds
-- while the rows behind them waited.
ALTER TABLE communities.index_followups ADD COLUMN next_attempt_at timestamptz;
ALTER TABLE communities.erasure_followups ADD COLUMN next_attempt_at timestamptz;
CREATE INDEX index_followups_due ON communities.index_followups ((coalesce(next_attempt_at, created_at)));
CREATE INDEX erasure_followups_due ON communities.erasure_followups ((coalesce(next_attempt_at, created_at)));
