-- Identities at an external OpenID Connect provider, linked to users (docs/SETTINGS.md "Signing
-- in"). The provider's issuer and the person's subject there identify them for good; the e-mail
-- address links an identity to a user only the first time, and only when the provider says it is
-- verified.
CREATE TABLE identity.external_identities (
  issuer          text NOT NULL,
  subject         text NOT NULL,
  user_id         text NOT NULL REFERENCES identity.users(id) ON DELETE CASCADE,
  linked_at       timestamptz NOT NULL DEFAULT now(),
  last_sign_in_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (issuer, subject)
);
CREATE INDEX external_identities_user ON identity.external_identities (user_id);
