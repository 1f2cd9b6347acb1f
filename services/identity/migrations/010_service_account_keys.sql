-- Service accounts that authenticate with a key pair instead of a secret (RFC 7523
-- `private_key_jwt`): the public JWK registered at creation verifies the client assertion the
-- account signs for each token request. An account holds a secret hash, a public key, or both.
ALTER TABLE identity.service_accounts ALTER COLUMN secret_hash DROP NOT NULL;
ALTER TABLE identity.service_accounts ADD COLUMN public_jwk jsonb;
ALTER TABLE identity.service_accounts ADD CONSTRAINT service_accounts_authenticates
  CHECK (secret_hash IS NOT NULL OR public_jwk IS NOT NULL);

-- Client assertions already used, kept until they expire: an assertion is good for one token
-- request only (RFC 7523 §3, `jti`). A sweep is not needed for correctness (an expired assertion is
-- refused anyway); rows past their expiry are deleted as new ones arrive.
CREATE TABLE identity.service_account_assertions (
  service_account_id text NOT NULL REFERENCES identity.service_accounts (id) ON DELETE CASCADE,
  jti                text NOT NULL,
  expires_at         timestamptz NOT NULL,
  PRIMARY KEY (service_account_id, jti)
);
CREATE INDEX service_account_assertions_expiry ON identity.service_account_assertions (expires_at);
