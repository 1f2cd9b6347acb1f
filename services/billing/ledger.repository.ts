// The ledger: append-only entries, each unique by its business reference, posted in the same
// transaction that moves the wallet's balance. Posting the same reference twice — a retry, a crash
// and replay, or a concurrent duplicate — leaves exactly one entry.
import { randomUUID } from 'node:crypto';
import type { Database, Queryable } from '../kit/db/database.js';
import { isUniqueViolation } from '../kit/db/database.js';
import type { OwnerTypeName } from '../kit/enums.js';
import { utcMonth } from './funding-consumption.js';

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

    /**
     * Posts many entries of one owner in one transaction — one lock of the wallet, one insert, one
     * balance update — each once per reference: a reference already posted comes back as it was
     * (`created` false), one given twice is posted once. Results follow the order given, and the
     * new entries' balances run in that order (their times a microsecond apart, so the wallet's
     * history lists them in it).
     */
    async postMany(owner: Owner, postings: readonly Omit<Posting, 'owner'>[]): Promise<Array<{ entry: LedgerRow; created: boolean }>> {
      for (const p of postings) if (!Number.isSafeInteger(p.amount) || p.amount === 0) throw new RangeError('amount must be a non-zero integer');
      const distinct = [...new Map(postings.map((p) => [p.reference, p])).values()];
      if (distinct.length === 0) return [];
      try {
        return await db.transaction(async (tx) => {
          const wallet = await lockWallet(tx, owner);
          const existing = new Map(
            // A unique-index lookup per reference, whatever the statistics say: on a ledger not yet
            // analysed, `reference = ANY(…)` was a scan of the whole ledger per batch.
            (await tx.query<LedgerRow>(
              `SELECT e.* FROM unnest($1::text[]) AS k(reference)
                 CROSS JOIN LATERAL (SELECT * FROM billing.ledger_entries l WHERE l.reference = k.reference LIMIT 1) e`,
              [distinct.map((p) => p.reference)],
            ))
              .map((row) => [row.reference, row]),
          );
          const fresh = distinct.filter((p) => !existing.has(p.reference));
          let balance = wallet.balance;
          const balances = fresh.map((p) => (balance += p.amount));
          const inserted = fresh.length === 0 ? [] : await tx.query<LedgerRow>(
            `INSERT INTO billing.ledger_entries (id, owner_type, owner_id, amount, reference, operation, rate, units,
               credential_id, note, balance_after, request_id, created_at)
             SELECT 'le_' || gen_random_uuid(), $1, $2, e.amount, e.reference, e.operation, e.rate, e.units,
                    e.credential_id, e.note, e.balance_after, e.request_id, now() + (e.n - 1) * interval '1 microsecond'
               FROM unnest($3::int8[], $4::text[], $5::text[], $6::int8[], $7::int4[], $8::text[], $9::text[], $10::int8[], $11::text[])
                    WITH ORDINALITY AS e(amount, reference, operation, rate, units, credential_id, note, balance_after, request_id, n)
             RETURNING *`,
            [owner.type, owner.id, fresh.map((p) => p.amount), fresh.map((p) => p.reference), fresh.map((p) => p.operation),
              fresh.map((p) => p.rate ?? 0), fresh.map((p) => p.units ?? 0), fresh.map((p) => p.credentialId ?? null),
              fresh.map((p) => p.note ?? null), balances, fresh.map((p) => p.requestId || null)],
          );
          if (fresh.length > 0) {
            await tx.query('UPDATE billing.wallets SET balance = $3, updated_at = now() WHERE owner_type = $1 AND owner_id = $2', [owner.type, owner.id, balance]);
          }
          const posted = new Map(inserted.map((row) => [row.reference, row]));
          return distinct.map((p) => (existing.has(p.reference)
            ? { entry: existing.get(p.reference)!, created: false }
            : { entry: posted.get(p.reference)!, created: true }));
        });
      } catch (error) {
        // A reference raced in on another wallet's lock: post them one at a time, as post() does.
        if (!isUniqueViolation(error)) throw error;
        const out: Array<{ entry: LedgerRow; created: boolean }> = [];
        for (const p of distinct) out.push(await this.post({ ...p, owner }));
        return out;
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

    /**
     * The owner's balance and this credential's spend in the UTC month of `now`, in one round trip
     * (GET /v1/me): two key lookups, the month's total kept by the ledger's insert trigger (migration 005).
     */
    async balanceAndSpend(owner: Owner, credentialId: string, now = new Date()): Promise<{ balance: number; spent: number }> {
      return (await this.balancesAndSpends([{ owner, credentialId }], utcMonth(now)))[0]!;
    },

    /** `balanceAndSpend` of each of these callers in `month` (YYYY-MM), in one statement, in their order. */
    async balancesAndSpends(callers: readonly { owner: Owner; credentialId: string }[], month: string): Promise<Array<{ balance: number; spent: number }>> {
      const rows = await db.query<{ i: number; balance: number; spent: number }>(
        `SELECT c.i::int8 AS i,
                coalesce((SELECT balance FROM billing.wallets WHERE owner_type = c.owner_type AND owner_id = c.owner_id), 0)::int8 AS balance,
                coalesce((SELECT credits FROM billing.credential_spend WHERE credential_id = c.credential_id AND month = $4), 0)::int8 AS spent
           FROM unnest($1::text[], $2::text[], $3::text[]) WITH ORDINALITY AS c(owner_type, owner_id, credential_id, i)`,
        [callers.map((c) => c.owner.type), callers.map((c) => c.owner.id), callers.map((c) => c.credentialId), month],
        { genericPlan: true },
      );
      const byIndex = new Map(rows.map((r) => [Number(r.i), { balance: r.balance, spent: r.spent }]));
      return callers.map((_, i) => byIndex.get(i + 1)!);
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
