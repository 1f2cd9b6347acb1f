-- Calls per service account per UTC day, written in batches like key_usage_daily and
-- grant_usage_daily (a table of its own: each references its own credentials).
CREATE TABLE identity.service_account_usage_daily (
  service_account_id text NOT NULL REFERENCES identity.service_accounts (id) ON DELETE CASCADE,
  day                date NOT NULL,
  requests           bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (service_account_id, day)
);
