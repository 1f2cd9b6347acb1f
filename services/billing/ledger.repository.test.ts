// Money is exact: one entry per reference whatever the races, balances that always equal the sum
// of their ledger, and what a credential spent this month (GET /v1/me `credits_spent_this_month`),
// a total the ledger's inserts keep (migration 005), always the sum of its debits in the UTC month —
// one posting or many, in parallel on two wallets, at a month's edge, never a rolled-back one. A
// database upgraded with entries already posted starts from their sums, and the ledger cannot be
// changed or emptied.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withDatabaseBefore } from '../../test/helpers/migrations-before.js';
import { openTestDatabase, storeNames } from '../../test/helpers/stores.js';
import type { Database } from '../kit/db/database.js';
import { createLedger, type Ledger } from './ledger.repository.js';

/** The ledger's own sum of a credential's debits in the UTC month of `at`. */
async function ledgerSum(db: Database, credentialId: string, at: Date): Promise<number> {
  const start = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), 1));
  const end = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + 1, 1));
  const [row] = await db.query<{ spent: number }>(
    `SELECT coalesce(-sum(amount), 0)::int8 AS spent FROM billing.ledger_entries
      WHERE credential_id = $1 AND amount < 0 AND created_at >= $2 AND created_at < $3`,
    [credentialId, start, end],
  );
  return row!.spent;
}

describe.each(storeNames())('ledger on %s', (store) => {
  let db: Database;
  let ledger: Ledger;
  let close: () => Promise<void>;
  beforeAll(async () => {
    ({ db, close } = await openTestDatabase(store));
    ledger = createLedger(db);
  });
  afterAll(async () => {
    // Reconciliation: every wallet's balance equals the sum of its entries.
    expect(await ledger.unreconciled()).toEqual([]);
    await close();
  });

  const ada = { type: 'user' as const, id: 'u_ada' };
  /** What the credential spent in the UTC month of `at`, as GET /v1/me reads it. */
  const spent = async (credentialId: string, at?: Date) => (await ledger.balanceAndSpend(ada, credentialId, at)).spent;

  it('posts a credit and moves the balance', async () => {
    const { entry, created } = await ledger.post({ owner: ada, amount: 100, reference: 'credit:a1', operation: 'credit' });
    expect(created).toBe(true);
    expect(entry.balance_after).toBe(100);
    expect((await ledger.wallet(ada)).balance).toBe(100);
  });

  it('50 parallel posts with one reference make exactly one entry', async () => {
    const owner = { type: 'user' as const, id: 'u_race_same' };
    const results = await Promise.all(
      Array.from({ length: 50 }, () => ledger.post({ owner, amount: -3, reference: 'search:s_race', operation: 'search', rate: 3, units: 1 })),
    );
    expect(results.filter((r) => r.created)).toHaveLength(1);
    expect(new Set(results.map((r) => r.entry.id)).size).toBe(1);
    expect((await ledger.wallet(owner)).balance).toBe(-3);
    const rows = await db.query<{ n: number }>("SELECT count(*)::int8 AS n FROM billing.ledger_entries WHERE reference = 'search:s_race'");
    expect(rows[0]!.n).toBe(1);
  });

  it('50 parallel posts with distinct references on one wallet leave the exact balance', async () => {
    const owner = { type: 'organization' as const, id: 'o_race_distinct' };
    await Promise.all(
      Array.from({ length: 50 }, (_, i) => ledger.post({ owner, amount: -(i + 1), reference: `search:d_${i}`, operation: 'search' })),
    );
    expect((await ledger.wallet(owner)).balance).toBe(-(50 * 51) / 2);
    const entries = await ledger.entries(owner, 100);
    expect(entries).toHaveLength(50);
    // balance_after forms one unbroken chain: no two postings saw the same starting balance.
    const afters = entries.map((e) => e.balance_after).sort((a, b) => b - a);
    expect(new Set(afters).size).toBe(50);
  });

  it('lets a balance go below zero (post-hoc metering) and refuses a zero or fractional amount', async () => {
    const owner = { type: 'user' as const, id: 'u_negative' };
    await ledger.post({ owner, amount: -5, reference: 'search:neg', operation: 'search' });
    expect((await ledger.wallet(owner)).balance).toBe(-5);
    await expect(ledger.post({ owner, amount: 0, reference: 'x:0', operation: 'x' })).rejects.toThrow(RangeError);
    await expect(ledger.post({ owner, amount: 1.5, reference: 'x:1', operation: 'x' })).rejects.toThrow(RangeError);
  });

  it('adjusts to a target with one entry, and concurrent identical adjustments post once', async () => {
    const owner = { type: 'user' as const, id: 'u_adjust' };
    await Promise.all([ledger.adjustTo(owner, 250, 'seed'), ledger.adjustTo(owner, 250, 'seed')]);
    expect((await ledger.wallet(owner)).balance).toBe(250);
    expect(await ledger.entries(owner, 10)).toHaveLength(1);
    await ledger.adjustTo(owner, 250, 'seed');
    expect(await ledger.entries(owner, 10)).toHaveLength(1);
    await ledger.adjustTo(owner, 40, 'seed');
    expect((await ledger.wallet(owner)).balance).toBe(40);
  });

  it('sums what a credential spent this month (debits only)', async () => {
    const owner = { type: 'user' as const, id: 'u_spender' };
    await ledger.post({ owner, amount: 50, reference: 'credit:sp', operation: 'credit', credentialId: 'k_sp' });
    await ledger.post({ owner, amount: -3, reference: 'search:sp1', operation: 'search', credentialId: 'k_sp' });
    await ledger.post({ owner, amount: -8, reference: 'enrichment_deep:r:p', operation: 'enrichment_deep', credentialId: 'k_sp' });
    await ledger.post({ owner, amount: -1, reference: 'search:other', operation: 'search', credentialId: 'k_other' });
    expect(await spent('k_sp')).toBe(11);
    expect(await ledger.balanceAndSpend(owner, 'k_sp')).toEqual({ balance: 38, spent: 11 });
    expect(await ledger.balanceAndSpend({ type: 'user', id: 'u_nobody' }, 'k_none')).toEqual({ balance: 0, spent: 0 });
  });

  it('reads the balances and spends of many callers in one statement, each in the order asked', async () => {
    const rich = { type: 'user' as const, id: 'u_many_rich' };
    const org = { type: 'organization' as const, id: 'o_many' };
    await ledger.post({ owner: rich, amount: 70, reference: 'credit:many1', operation: 'credit', credentialId: 'k_m1' });
    await ledger.post({ owner: rich, amount: -4, reference: 'search:many1', operation: 'search', credentialId: 'k_m1' });
    await ledger.post({ owner: org, amount: 9, reference: 'credit:many2', operation: 'credit', credentialId: 'k_m2' });
    const month = new Date().toISOString().slice(0, 7);
    const asked = [
      { owner: org, credentialId: 'k_m2' },
      { owner: rich, credentialId: 'k_m1' },
      { owner: { type: 'user' as const, id: 'u_many_none' }, credentialId: 'k_m3' },
      { owner: rich, credentialId: 'k_m2' },
      { owner: org, credentialId: 'k_m2' },
    ];
    expect(await ledger.balancesAndSpends(asked, month)).toEqual([
      { balance: 9, spent: 0 },
      { balance: 66, spent: 4 },
      { balance: 0, spent: 0 },
      { balance: 66, spent: 0 },
      { balance: 9, spent: 0 },
    ]);
    expect(await ledger.balancesAndSpends(asked.slice(1, 2), '2001-01')).toEqual([{ balance: 66, spent: 0 }]);
  });

  it('counts debits posted one by one and many at once; credits and other credentials do not count', async () => {
    const owner = { type: 'user' as const, id: 'u_counted' };
    await ledger.post({ owner, amount: 500, reference: 'credit:counted', operation: 'credit', credentialId: 'k_counted' });
    await ledger.post({ owner, amount: -3, reference: 'search:c1', operation: 'search', credentialId: 'k_counted' });
    await ledger.postMany(owner, [
      { amount: -2, reference: 'enrichment_quick:r:p1', operation: 'enrichment_quick', credentialId: 'k_counted' },
      { amount: -2, reference: 'enrichment_quick:r:p2', operation: 'enrichment_quick', credentialId: 'k_counted' },
      { amount: -2, reference: 'enrichment_quick:r:p2', operation: 'enrichment_quick', credentialId: 'k_counted' }, // named twice: posted once
      { amount: -1, reference: 'enrichment_quick:r:p3', operation: 'enrichment_quick', credentialId: 'k_elsewhere' },
      { amount: -4, reference: 'enrichment_quick:r:p4', operation: 'enrichment_quick' },
    ]);
    // Posted again: nothing moves, and nothing is counted twice.
    await ledger.post({ owner, amount: -3, reference: 'search:c1', operation: 'search', credentialId: 'k_counted' });
    await ledger.postMany(owner, [{ amount: -2, reference: 'enrichment_quick:r:p1', operation: 'enrichment_quick', credentialId: 'k_counted' }]);
    const now = new Date();
    expect(await spent('k_counted')).toBe(7);
    expect(await ledgerSum(db, 'k_counted', now)).toBe(7);
    expect(await spent('k_elsewhere')).toBe(1);
    expect(await ledger.balanceAndSpend(owner, 'k_counted')).toEqual({ balance: 488, spent: 7 });
    // Another month holds none of it.
    expect(await spent('k_counted', new Date(Date.UTC(now.getUTCFullYear() - 1, 0, 15)))).toBe(0);
  });

  it('50 parallel charges of one credential on two wallets are all counted, once', async () => {
    const owners = [{ type: 'user' as const, id: 'u_par' }, { type: 'organization' as const, id: 'o_par' }];
    for (const owner of owners) await ledger.post({ owner, amount: 1000, reference: `credit:${owner.id}`, operation: 'credit' });
    await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        ledger.post({ owner: owners[i % 2]!, amount: -(1 + (i % 3)), reference: `search:par${i}`, operation: 'search', credentialId: 'k_par' })),
    );
    const expected = Array.from({ length: 50 }, (_, i) => 1 + (i % 3)).reduce((a, b) => a + b, 0);
    expect(await spent('k_par')).toBe(expected);
    expect(await ledgerSum(db, 'k_par', new Date())).toBe(expected);
  });

  it('puts an entry in the UTC month of its time, to the microsecond', async () => {
    // Entries written with their times (as a ledger carried over from elsewhere would be), summing
    // to zero so the wallet still reconciles.
    await db.transaction(async (tx) => {
      await tx.query(`INSERT INTO billing.wallets (owner_type, owner_id, balance) VALUES ('user', 'u_edge', 0)`);
      await tx.query(
        `INSERT INTO billing.ledger_entries (id, owner_type, owner_id, amount, reference, operation, credential_id, balance_after, created_at)
         VALUES ('le_e1', 'user', 'u_edge', 5, 'credit:edge', 'credit', 'k_edge', 5, '2026-10-31T23:00:00Z'),
                ('le_e2', 'user', 'u_edge', -2, 'search:edge1', 'search', 'k_edge', 3, '2026-10-31T23:59:59.999999Z'),
                ('le_e3', 'user', 'u_edge', -3, 'search:edge2', 'search', 'k_edge', 0, '2026-11-01T00:00:00Z')`,
      );
    });
    expect(await spent('k_edge', new Date('2026-10-31T12:00:00Z'))).toBe(2);
    expect(await spent('k_edge', new Date('2026-11-30T12:00:00Z'))).toBe(3);
    expect(await ledgerSum(db, 'k_edge', new Date('2026-10-31T12:00:00Z'))).toBe(2);
  });

  it('a charge rolled back counts nothing', async () => {
    const owner = { type: 'user' as const, id: 'u_rolled' };
    await ledger.post({ owner, amount: 10, reference: 'credit:rolled', operation: 'credit' });
    await ledger.post({ owner, amount: -1, reference: 'search:kept', operation: 'search', credentialId: 'k_rolled' });
    await expect(
      db.transaction(async (tx) => {
        await tx.query(
          `INSERT INTO billing.ledger_entries (id, owner_type, owner_id, amount, reference, operation, credential_id, balance_after)
           VALUES ('le_rb', 'user', 'u_rolled', -4, 'search:rolled', 'search', 'k_rolled', 5)`,
        );
        throw new Error('the process died before the commit');
      }),
    ).rejects.toThrow('the process died before the commit');
    expect(await spent('k_rolled')).toBe(1);
  });

  it('refuses to change, remove or empty ledger entries, and keeps them', async () => {
    const owner = { type: 'user' as const, id: 'u_fixed' };
    await ledger.post({ owner, amount: 10, reference: 'credit:fixed', operation: 'credit' });
    await ledger.post({ owner, amount: -2, reference: 'search:fixed', operation: 'search', credentialId: 'k_fixed' });
    await expect(db.query(`UPDATE billing.ledger_entries SET amount = -1 WHERE reference = 'search:fixed'`)).rejects.toThrow(/append-only \(UPDATE refused\)/);
    await expect(db.query(`DELETE FROM billing.ledger_entries WHERE reference = 'search:fixed'`)).rejects.toThrow(/append-only \(DELETE refused\)/);
    await expect(db.query('TRUNCATE billing.ledger_entries CASCADE')).rejects.toThrow(/append-only \(TRUNCATE refused\)/);
    expect((await ledger.entries(owner, 10)).map((e) => e.amount)).toEqual([-2, 10]);
    expect(await spent('k_fixed')).toBe(2);
  });
});

describe.each(storeNames())('billing migration 005 on %s', (store) => {
  it('starts the totals from the entries already posted, each in its month', async () => {
    await withDatabaseBefore(store, 'billing', '005_credential_spend.sql', async (db, upgradeNow) => {
      await db.query(`INSERT INTO billing.wallets (owner_type, owner_id, balance) VALUES ('user', 'u_old', 80)`);
      await db.query(
        `INSERT INTO billing.ledger_entries (id, owner_type, owner_id, amount, reference, operation, credential_id, balance_after, created_at)
         VALUES ('le_o1', 'user', 'u_old', 100, 'credit:old', 'credit', 'k_old', 100, '2026-09-30T10:00:00Z'),
                ('le_o2', 'user', 'u_old', -6, 'search:o1', 'search', 'k_old', 94, '2026-09-30T11:00:00Z'),
                ('le_o3', 'user', 'u_old', -5, 'search:o2', 'search', 'k_old', 89, '2026-10-02T11:00:00Z'),
                ('le_o4', 'user', 'u_old', -4, 'search:o3', 'search', 'k_old', 85, '2026-10-03T11:00:00Z'),
                ('le_o5', 'user', 'u_old', -5, 'search:o4', 'search', NULL, 80, '2026-10-03T12:00:00Z')`,
      );
      expect(await upgradeNow()).toContain('005_credential_spend.sql');
      const ledger = createLedger(db);
      const spent = async (credentialId: string, at: Date) => (await ledger.balanceAndSpend({ type: 'user', id: 'u_old' }, credentialId, at)).spent;
      expect(await spent('k_old', new Date('2026-09-15T00:00:00Z'))).toBe(6);
      expect(await spent('k_old', new Date('2026-10-15T00:00:00Z'))).toBe(9);
      // And from then on, the trigger adds to them.
      await db.query(
        `INSERT INTO billing.ledger_entries (id, owner_type, owner_id, amount, reference, operation, credential_id, balance_after, created_at)
         VALUES ('le_o6', 'user', 'u_old', -1, 'search:o5', 'search', 'k_old', 79, '2026-10-04T11:00:00Z')`,
      );
      expect(await spent('k_old', new Date('2026-10-15T00:00:00Z'))).toBe(10);
    });
  });
});
