-- Member writes (docs/COMMUNITIES.md): matching keys on profiles, the just-in-time consent queue,
-- and durable placeholder-account tasks of bulk add and erasure.

-- Normalized matching keys, computed by the database from the stored values, so that profiles
-- written by any path (seed files, the operator, bulk add) match the same way. They mirror
-- services/communities/normalize.ts: email trimmed and lower-cased; the LinkedIn /in/ slug
-- lower-cased; the ORCID iD as its 16 characters (digits and X) without hyphens or URL.
ALTER TABLE communities.profiles
  ADD COLUMN email_key text GENERATED ALWAYS AS (nullif(lower(btrim(email)), '')) STORED,
  ADD COLUMN linkedin_key text GENERATED ALWAYS AS (
    substring(lower(btrim(linkedin_url)) FROM '^(?:https?://)?(?:[a-z0-9-]+\.)*linkedin\.com/in/([^/?#]+)')
  ) STORED,
  ADD COLUMN orcid_key text GENERATED ALWAYS AS (
    nullif(upper(regexp_replace(regexp_replace(btrim(orcid), '^(https?://)?(www\.)?orcid\.org/', '', 'i'), '[^0-9Xx]', '', 'g')), '')
  ) STORED;
CREATE INDEX profiles_email_key ON communities.profiles (email_key) WHERE email_key IS NOT NULL;
CREATE INDEX profiles_linkedin_key ON communities.profiles (linkedin_key) WHERE linkedin_key IS NOT NULL;
CREATE INDEX profiles_orcid_key ON communities.profiles (orcid_key) WHERE orcid_key IS NOT NULL;

-- Just-in-time consent: a write refused because the community's API writes are not attested,
-- while its billing owner has just-in-time consent on, queues one request here.
CREATE TABLE communities.consent_requests (
  id           text PRIMARY KEY,
  community_id text NOT NULL REFERENCES communities.communities (id) ON DELETE CASCADE,
  operation    text NOT NULL CHECK (operation IN ('members.add', 'members.remove', 'enrichment.start')),
  status       text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'approved', 'denied')),
  -- The credential (API key or OAuth grant id) whose call queued it.
  requested_by text NOT NULL,
  created_at   timestamptz NOT NULL DEFAULT now(),
  resolved_at  timestamptz,
  resolved_by  text,
  -- Approved requests: the latest write-attestation version at approval (0 = none). The approval
  -- counts only while no newer attestation version has been recorded.
  attestation_version integer,
  CHECK ((status = 'pending') = (resolved_at IS NULL))
);
-- At most one pending request per community and operation: retries never queue another.
CREATE UNIQUE INDEX consent_requests_one_pending ON communities.consent_requests (community_id, operation)
  WHERE status = 'pending';
CREATE INDEX consent_requests_order ON communities.consent_requests (created_at, id);
CREATE INDEX consent_requests_approved ON communities.consent_requests (community_id, operation)
  WHERE status = 'approved';

-- Placeholder auth-account work that must survive a crash: creating the account of a new
-- placeholder profile, and deleting the account of an erased placeholder (whose profile row is
-- already gone). Written in the same transaction as the profile change; done right after it and,
-- when that fails, again by the background sweeper. Both operations are idempotent by profile id.
CREATE TABLE communities.placeholder_tasks (
  kind        text NOT NULL CHECK (kind IN ('create_account', 'delete_account')),
  profile_id  text NOT NULL,
  user_id     text,
  attempts    integer NOT NULL DEFAULT 0,
  last_error  text,
  created_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (kind, profile_id)
);
