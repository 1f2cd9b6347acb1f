-- Idempotency records of the REST edge (docs/IDEMPOTENCY.md). One row per (credential, route,
-- Idempotency-Key): first an in-flight claim, then the stored response. Shared by every gateway
-- replica through the database, so a duplicate is caught whichever replica it reaches.
CREATE TABLE edge.idempotency_records (
  -- The credential the key belongs to: its kind ('api_key' | 'oauth') and id (key id or grant id).
  credential_kind  text        NOT NULL,
  credential_id    text        NOT NULL,
  -- Method and concrete path, e.g. 'POST /v1/communities/c_1/members' (no query string).
  route            text        NOT NULL,
  idempotency_key  text        NOT NULL,
  -- sha256 (hex) of the canonical JSON of the parsed request body.
  fingerprint      text        NOT NULL,
  state            text        NOT NULL CHECK (state IN ('in_flight', 'done')),
  -- Identifies the claim that owns an in-flight row, so a replica that lost its claim (taken over
  -- after the lease ran out) cannot finish or release someone else's.
  claim_token      text        NOT NULL,
  -- An in-flight claim whose lease has run out (its process died) may be taken over.
  lease_until      timestamptz NOT NULL,
  status_code      integer,
  response_headers jsonb,
  response_body    bytea,
  created_at       timestamptz NOT NULL DEFAULT now(),
  completed_at     timestamptz,
  -- Past this the row is ignored (and replaced by the next request with the key) and purged.
  expires_at       timestamptz NOT NULL,
  PRIMARY KEY (credential_kind, credential_id, route, idempotency_key),
  CHECK (state = 'in_flight' OR (status_code IS NOT NULL AND response_headers IS NOT NULL
                                 AND response_body IS NOT NULL AND completed_at IS NOT NULL))
);

CREATE INDEX idempotency_records_expires_at ON edge.idempotency_records (expires_at);
