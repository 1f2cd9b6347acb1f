// Money is exact: one entry per reference whatever the races, and balances that always equal the
// sum of their ledger.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestDatabase, storeNames } from '../../test/helpers/stores.js';
import type { Database } from '../kit/db/database.js';
import { createLedger, type Ledger } from './ledger.repository.js';

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
    expect(await ledger.spentThisMonth('k_sp')).toBe(11);
    expect(await ledger.balanceAndSpend(owner, 'k_sp')).toEqual({ balance: 38, spent: 11 });
    expect(await ledger.balanceAndSpend({ type: 'user', id: 'u_nobody' }, 'k_none')).toEqual({ balance: 0, spent: 0 });
  });
});
