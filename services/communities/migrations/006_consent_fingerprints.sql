-- A consent approval covers the write it approves (#43): each queued request keeps the fingerprint
-- of its write (operation, community and canonical body or target, hashed) and the write in words.
-- An approval lets through a retry with the same fingerprint, for a window after approval
-- (services/communities/write-gating.ts); any other write is queued as its own request.
ALTER TABLE communities.consent_requests
  ADD COLUMN fingerprint text,
  ADD COLUMN description text NOT NULL DEFAULT '';

-- One pending request per write, no longer per operation: a different add waits beside the first.
-- Requests queued before this migration have no fingerprint, and no approval of theirs counts.
DROP INDEX communities.consent_requests_one_pending;
CREATE UNIQUE INDEX consent_requests_one_pending ON communities.consent_requests (community_id, fingerprint)
  WHERE status = 'pending' AND fingerprint IS NOT NULL;
DROP INDEX communities.consent_requests_approved;
CREATE INDEX consent_requests_approved ON communities.consent_requests (community_id, fingerprint, resolved_at)
  WHERE status = 'approved';
