-- The request that caused a ledger entry (its X-Request-Id), so a person reading their ledger in
-- the settings web app can match a charge to the API call that made it. Null for entries made by
-- background work with no request behind it, and for entries posted before this column.
ALTER TABLE billing.ledger_entries ADD COLUMN request_id text;
