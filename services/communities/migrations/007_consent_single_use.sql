-- A consent approval lets its write through once (services/communities/write-gating.ts): the first
-- write it lets through stamps used_at, in the same UPDATE that checks it is still unused, so two
-- concurrent retries cannot both pass; the same write again queues a new request. Approvals given
-- before this column existed count as unused until their window ends.
ALTER TABLE communities.consent_requests ADD COLUMN used_at timestamptz;
