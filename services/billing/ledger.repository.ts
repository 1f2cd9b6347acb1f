// The ledger: append-only entries, each unique by its business reference, posted in the same
// transaction that moves the wallet's balance. Posting the same reference twice — a retry, a crash
// and replay, or a concurrent duplicate — leaves exactly one entry.
import { randomUUID } from 'node:crypto';
import type { Database, Queryable } from '../kit/db/database.js';
import { isUniqueViolation } from '../kit/db/database.js';
import type { OwnerTypeName } from '../kit/enums.js';

export interface Owner {
  type: OwnerTypeName;
  id: string;
}

export interface LedgerRow {
  id: string;
  owner_type: OwnerTypeName;
  owner_id: string;
  amount: number;
  reference: string;
  operation: string;
  rate: number;
  units: number;
  credential_id: string | null;
  note: string | null;
  balance_after: number;
  request_id: string | null;
  created_at: Date;
}

export interface WalletRow {
  owner_type: OwnerTypeName;
  owner_id: string;
  balance: number;
  updated_at: Date;
}

export interface Posting {
  owner: Owner;
  /** Positive credits, negative debits; never zero. */
  amount: number;
  reference: string;
  operation: string;
  rate?: number;
  units?: number;
  credentialId?: string;
  note?: string;
  /** The request that caused the posting (X-Request-Id), when there is one. */
  requestId?: string;
}

async function lockWallet(tx: Queryable, owner: Owner): Promise<WalletRow> {
  await tx.query('INSERT INTO billing.wallets (owner_type, owner_id) VALUES ($1, $2) ON CONFLICT DO NOTHING', [owner.type, owner.id]);
  const rows = await tx.query<WalletRow>(
    'SELECT * FROM billing.wallets WHERE owner_type = $1 AND owner_id = $2 FOR UPDATE',
    [owner.type, owner.id],
  );
  return rows[0]!;
}

async function entryByReference(db: Queryable, reference: string): Promise<LedgerRow | undefined> {
  const rows = await db.query<LedgerRow>('SELECT * FROM billing.ledger_entries WHERE reference = $1', [reference]);
  return rows[0];
}

async function append(tx: Queryable, wallet: WalletRow, p: Posting): Promise<LedgerRow> {
  const balanceAfter = wallet.balance + p.amount;
  const rows = await tx.query<LedgerRow>(
    `INSERT INTO billing.ledger_entries (id, owner_type, owner_id, amount, reference, operation, rate, units,
       credential_id, note, balance_after, request_id)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) RETURNING *`,
    [`le_${randomUUID()}`, p.owner.type, p.owner.id, p.amount, p.reference, p.operation, p.rate ?? 0, p.units ?? 0,
      p.credentialId ?? null, p.note ?? null, balanceAfter, p.requestId || null],
  );
  await tx.query('UPDATE billing.wallets SET balance = $3, updated_at = now() WHERE owner_type = $1 AND owner_id = $2', [
    p.owner.type, p.owner.id, balanceAfter,
  ]);
  return rows[0]!;
}

/** The note earlier versions gave the adjustment that set a seed balance. */
const SEED_ADJUSTMENT_NOTE = 'seed balance';

export function createLedger(db: Database) {
  return {
    /** Posts once per reference; `created` is false when the reference was already posted. */
    async post(p: Posting): Promise<{ entry: LedgerRow; created: boolean }> {
      if (!Number.isSafeInteger(p.amount) || p.amount === 0) throw new RangeError('amount must be a non-zero integer');
      try {
        return await db.transaction(async (tx) => {
          const wallet = await lockWallet(tx, p.owner);
          const existing = await entryByReference(tx, p.reference);
          if (existing) return { entry: existing, created: false };
          return { entry: await append(tx, wallet, p), created: true };
        });
      } catch (error) {
        // The same reference raced in on another wallet's lock: the first one stands.
        if (!isUniqueViolation(error)) throw error;
        return { entry: (await entryByReference(db, p.reference))!, created: false };
      }
    },

    /** Brings a wallet to `target` with one adjustment entry (none when it is there already). */
    async adjustTo(owner: Owner, target: number, note: string): Promise<WalletRow> {
      return db.transaction(async (tx) => {
        const wallet = await lockWallet(tx, owner);
        const delta = target - wallet.balance;
        if (delta !== 0) {
          const [{ n }] = (await tx.query<{ n: number }>(
            'SELECT count(*)::int8 AS n FROM billing.ledger_entries WHERE owner_type = $1 AND owner_id = $2',
            [owner.type, owner.id],
          )) as [{ n: number }];
          // Keyed by the wallet's entry count: two concurrent adjustments of one state post once.
          await append(tx, wallet, {
            owner, amount: delta, reference: `adjustment:${owner.type}:${owner.id}:${n}`, operation: 'adjustment', note,
          });
        }
        return (await tx.query<WalletRow>('SELECT * FROM billing.wallets WHERE owner_type = $1 AND owner_id = $2', [owner.type, owner.id]))[0]!;
      });
    },

    /**
     * A seed file's grant to a wallet: posts what brings the sum of the wallet's seed grants to
     * `granted` (nothing when it is there already), so charges and credits made since stay in the
     * balance. Earlier versions posted seed balances as 'adjustment' entries noted 'seed balance';
     * those count as grants too. Keyed by the number of grants so far, under the wallet's lock.
     */
    async grantSeed(owner: Owner, granted: number): Promise<{ wallet: WalletRow; posted: number }> {
      return db.transaction(async (tx) => {
        const wallet = await lockWallet(tx, owner);
        const [sums] = await tx.query<{ total: number; n: number }>(
          `SELECT coalesce(sum(amount), 0)::int8 AS total, count(*)::int8 AS n FROM billing.ledger_entries
            WHERE owner_type = $1 AND owner_id = $2
              AND (operation = 'seed' OR (operation = 'adjustment' AND note = '${SEED_ADJUSTMENT_NOTE}'))`,
          [owner.type, owner.id],
        );
        const delta = granted - Number(sums!.total);
        if (delta !== 0) {
          await append(tx, wallet, {
            owner, amount: delta, reference: `seed:${owner.type}:${owner.id}:${Number(sums!.n)}`, operation: 'seed', note: 'seed file balance',
          });
        }
        const row = (await tx.query<WalletRow>('SELECT * FROM billing.wallets WHERE owner_type = $1 AND owner_id = $2', [owner.type, owner.id]))[0]!;
        return { wallet: row, posted: delta };
      });
    },

    async wallet(owner: Owner): Promise<WalletRow> {
      const rows = await db.query<WalletRow>('SELECT * FROM billing.wallets WHERE owner_type = $1 AND owner_id = $2', [owner.type, owner.id]);
      return rows[0] ?? { owner_type: owner.type, owner_id: owner.id, balance: 0, updated_at: new Date(0) };
    },

    /** Newest first; the cursor is the last entry's id of the previous page. */
    async entries(owner: Owner, limit: number, before?: { createdAt: Date; id: string }): Promise<LedgerRow[]> {
      return db.query<LedgerRow>(
        `SELECT * FROM billing.ledger_entries WHERE owner_type = $1 AND owner_id = $2
           AND ($3::timestamptz IS NULL OR (created_at, id) < ($3::timestamptz, $4::text))
         ORDER BY created_at DESC, id DESC LIMIT $5`,
        [owner.type, owner.id, before?.createdAt ?? null, before?.id ?? null, limit],
      );
    },

    async entryById(id: string): Promise<LedgerRow | undefined> {
      return (await db.query<LedgerRow>('SELECT * FROM billing.ledger_entries WHERE id = $1', [id]))[0];
    },

    /** The owner's balance and this credential's spend this month, in one round trip (GET /v1/me). */
    async balanceAndSpend(owner: Owner, credentialId: string, now = new Date()): Promise<{ balance: number; spent: number }> {
      const monthStart = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
      const rows = await db.query<{ balance: number; spent: number }>(
        `SELECT coalesce((SELECT balance FROM billing.wallets WHERE owner_type = $1 AND owner_id = $2), 0)::int8 AS balance,
                coalesce((SELECT -sum(amount) FROM billing.ledger_entries
                           WHERE credential_id = $3 AND amount < 0 AND created_at >= $4), 0)::int8 AS spent`,
        [owner.type, owner.id, credentialId, monthStart],
      );
      return rows[0]!;
    },

    /** Credits debited for calls made with this credential since the start of the UTC month. */
    async spentThisMonth(credentialId: string, now = new Date()): Promise<number> {
      const monthStart = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
      const rows = await db.query<{ spent: number }>(
        `SELECT coalesce(-sum(amount), 0)::int8 AS spent FROM billing.ledger_entries
          WHERE credential_id = $1 AND amount < 0 AND created_at >= $2`,
        [credentialId, monthStart],
      );
      return rows[0]?.spent ?? 0;
    },

    /** Wallets whose balance differs from the sum of their entries (should always be empty). */
    async unreconciled(): Promise<UnreconciledRow[]> {
      return db.query(
        `SELECT w.owner_type, w.owner_id, w.balance, coalesce(sum(e.amount), 0)::int8 AS ledger_sum
           FROM billing.wallets w LEFT JOIN billing.ledger_entries e
             ON e.owner_type = w.owner_type AND e.owner_id = w.owner_id
          GROUP BY w.owner_type, w.owner_id, w.balance
         HAVING w.balance <> coalesce(sum(e.amount), 0)`,
      );
    },

    /** How many wallets there are (what a reconciliation checked). */
    async walletCount(): Promise<number> {
      const counted = await db.query<{ n: number }>('SELECT count(*)::int8 AS n FROM billing.wallets');
      return Number(counted[0]?.n ?? 0);
    },
  };
}

export type Ledger = ReturnType<typeof createLedger>;

export interface UnreconciledRow {
  owner_type: string;
  owner_id: string;
  balance: number;
  ledger_sum: number;
}
