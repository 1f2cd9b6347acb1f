-- Wallets and the append-only ledger. A wallet's balance is the sum of its entries; it is kept
-- on the wallet row (updated in the same transaction as each entry) and checked by reconciliation.
CREATE TABLE billing.wallets (
  owner_type  text NOT NULL CHECK (owner_type IN ('user', 'organization')),
  owner_id    text NOT NULL,
  balance     bigint NOT NULL DEFAULT 0,
  updated_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (owner_type, owner_id)
);

CREATE TABLE billing.ledger_entries (
  id            text PRIMARY KEY,
  owner_type    text NOT NULL,
  owner_id      text NOT NULL,
  amount        bigint NOT NULL CHECK (amount <> 0),
  -- One entry per business reference, whatever retries or races happen.
  reference     text NOT NULL UNIQUE,
  operation     text NOT NULL,
  rate          bigint NOT NULL DEFAULT 0,
  units         integer NOT NULL DEFAULT 0,
  credential_id text,
  note          text,
  balance_after bigint NOT NULL,
  created_at    timestamptz NOT NULL DEFAULT now(),
  FOREIGN KEY (owner_type, owner_id) REFERENCES billing.wallets (owner_type, owner_id)
);
CREATE INDEX ledger_entries_wallet ON billing.ledger_entries (owner_type, owner_id, created_at DESC, id DESC);
CREATE INDEX ledger_entries_credential ON billing.ledger_entries (credential_id, created_at) WHERE credential_id IS NOT NULL;
