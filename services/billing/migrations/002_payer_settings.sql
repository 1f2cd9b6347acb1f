-- Payer resolution settings (docs/BILLING.md, "Payer resolution"): a user's saved wallet for
-- global searches, how an organization covers charges named to its communities, and what it has
-- already covered under a delegation budget this month.

-- At most one saved global-search wallet per user: the user's own, or an organization's the user
-- belongs to (checked when set, and again when a search is resolved).
CREATE TABLE billing.global_search_preferences (
  user_id           text PRIMARY KEY,
  wallet_owner_type text NOT NULL CHECK (wallet_owner_type IN ('user', 'organization')),
  wallet_owner_id   text NOT NULL,
  updated_at        timestamptz NOT NULL DEFAULT now()
);

-- An organization's coverage of charges named to the communities it owns. community_id '' is the
-- organization-wide setting (every community it owns); a community's own row wins over it.
CREATE TABLE billing.organization_funding (
  organization_id             text NOT NULL,
  community_id                text NOT NULL DEFAULT '',
  standing_funding            boolean NOT NULL DEFAULT false,
  delegation_budget_per_month bigint NOT NULL DEFAULT 0 CHECK (delegation_budget_per_month >= 0),
  updated_at                  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (organization_id, community_id)
);

-- Credits an organization paid under its delegation budget, per community and UTC month
-- ('YYYY-MM'). Kept here rather than derived from the ledger; metering reports each delegated
-- charge through recordDelegatedCharge (services/billing/funding-consumption.ts).
CREATE TABLE billing.delegation_consumption (
  organization_id text NOT NULL,
  community_id    text NOT NULL,
  month           text NOT NULL CHECK (month ~ '^[0-9]{4}-[0-9]{2}$'),
  credits         bigint NOT NULL DEFAULT 0 CHECK (credits >= 0),
  PRIMARY KEY (organization_id, community_id, month)
);

-- The charges already counted above, by their ledger reference, so that reporting one charge
-- twice (a retry, a replay) counts it once.
CREATE TABLE billing.delegation_charges (
  reference       text PRIMARY KEY,
  organization_id text NOT NULL,
  community_id    text NOT NULL,
  month           text NOT NULL,
  credits         bigint NOT NULL CHECK (credits > 0),
  created_at      timestamptz NOT NULL DEFAULT now()
);
