-- What each credential spent in each UTC month, kept beside the ledger it sums. GET /v1/me shows
-- `credits_spent_this_month`; summing the month's debits of the key on every request read every
-- entry of the month (77–120 ms on PostgreSQL for a key with 30,000 charges this month, and growing
-- until the 1st), where this is one row. The ledger is append-only, so a statement trigger on its
-- inserts keeps the totals exact in the inserting transaction: a rolled-back charge counts nothing,
-- and no writer can post an entry without it. Month keys are 'YYYY-MM' of the entry's created_at in
-- UTC, as billing.delegation_consumption's are.
CREATE TABLE billing.credential_spend (
  credential_id text NOT NULL,
  month         text NOT NULL CHECK (month ~ '^[0-9]{4}-[0-9]{2}$'),
  credits       bigint NOT NULL CHECK (credits >= 0),
  PRIMARY KEY (credential_id, month)
);

CREATE FUNCTION billing.count_credential_spend() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- In key order, so two inserting transactions lock the totals they share in the same order.
  INSERT INTO billing.credential_spend AS s (credential_id, month, credits)
  SELECT credential_id, to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM'), -sum(amount)
    FROM new_entries
   WHERE credential_id IS NOT NULL AND amount < 0
   GROUP BY 1, 2
   ORDER BY 1, 2
  ON CONFLICT (credential_id, month) DO UPDATE SET credits = s.credits + EXCLUDED.credits;
  RETURN NULL;
END $$;

CREATE TRIGGER ledger_entries_credential_spend AFTER INSERT ON billing.ledger_entries
  REFERENCING NEW TABLE AS new_entries FOR EACH STATEMENT EXECUTE FUNCTION billing.count_credential_spend();

-- The totals depend on the ledger staying append-only, as every writer already keeps it: an entry
-- changed or removed is refused instead of leaving the totals (and the balances' history) wrong.
CREATE FUNCTION billing.refuse_ledger_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'billing.ledger_entries is append-only (% refused)', TG_OP;
END $$;

CREATE TRIGGER ledger_entries_append_only BEFORE UPDATE OR DELETE ON billing.ledger_entries
  FOR EACH STATEMENT EXECUTE FUNCTION billing.refuse_ledger_change();
CREATE TRIGGER ledger_entries_no_truncate BEFORE TRUNCATE ON billing.ledger_entries
  FOR EACH STATEMENT EXECUTE FUNCTION billing.refuse_ledger_change();

-- The totals of the entries posted before this migration.
INSERT INTO billing.credential_spend (credential_id, month, credits)
SELECT credential_id, to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM'), -sum(amount)
  FROM billing.ledger_entries
 WHERE credential_id IS NOT NULL AND amount < 0
 GROUP BY 1, 2;
