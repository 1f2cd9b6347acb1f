// Metering through the running system over gRPC with enforcement off: rates, charges exactly once,
// the funds check, self-enrich metering with its cooldown, reconciliation (gRPC and the admin CLI),
// and CREDIT_RATES. Enforcement on: billing-enforcement.test.ts.
import { Status } from 'nice-grpc';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fromRemote } from '../gateway/core/api-error.js';
import { PayerSource } from '../proto/gen/expertnet/billing/v1/billing_service.js';
import { DEFAULT_RATES } from '../services/billing/rates.js';
import { callAs } from '../services/kit/grpc/client.js';
import { readRemoteError } from '../services/kit/grpc/errors.js';
import { storeNames } from './helpers/stores.js';
import { startTestSystem, type TestSystem } from './helpers/test-system.js';
import { callerOf, DAY, failure, harness, legacyCaller, organization, runCli, seed, USER, user } from './helpers/billing-metering.js';

describe.each(storeNames())('billing metering on %s (enforcement off)', (store) => {
  let sys: TestSystem;
  const h = harness(() => sys);
  beforeAll(async () => {
    sys = await startTestSystem({ store, seed });
  });
  afterAll(async () => sys?.stop());

  it('lists the default rates', async () => {
    const { rates } = await sys.clients.billing.listRates({}, await h.operator());
    expect(rates).toEqual(Object.entries(DEFAULT_RATES).map(([operation, creditsPerUnit]) => ({ operation, creditsPerUnit })));
    expect(Object.fromEntries(rates.map((r) => [r.operation, r.creditsPerUnit]))).toEqual({
      search: 1, enrichment_self: 1, enrichment_quick: 1, enrichment_standard: 3, enrichment_deep: 8,
    });
  });

  it('a charge debits rate × units, records the rate and the credential', async () => {
    const before = await h.balance(user('u_payer'));
    const { entry, created } = await h.charge({
      payer: user('u_payer'), operation: 'enrichment_standard', units: 4, reference: 'enrichment_standard:run1:p1', credentialId: 'k_payer',
    });
    expect(created).toBe(true);
    expect(entry).toMatchObject({
      owner: user('u_payer'), amount: -12, rate: 3, operation: 'enrichment_standard', reference: 'enrichment_standard:run1:p1',
      credentialId: 'k_payer', balanceAfter: before - 12,
    });
    expect(await h.balance(user('u_payer'))).toBe(before - 12);
    const search = await h.charge({ payer: user('u_payer'), operation: 'search', reference: 'search:s_1' });
    expect(search.entry).toMatchObject({ amount: -1, rate: 1 });
  });

  it('refuses an unknown operation, zero units, a reference of another shape, a missing payer', async () => {
    const bad = [
      { payer: user('u_payer'), operation: 'teleport', reference: 'teleport:1' },
      { payer: user('u_payer'), operation: 'search', units: 0, reference: 'search:zero' },
      { payer: user('u_payer'), operation: 'search', reference: 'credit:r1' },
      { payer: user('u_payer'), operation: 'search', reference: 'search:' },
      { payer: { type: USER, id: '' }, operation: 'search', reference: 'search:nobody' },
    ];
    for (const req of bad) expect((await failure(h.charge(req))).code, JSON.stringify(req)).toBe('invalid_request');
  });

  it('is service-only: a caller principal cannot charge', async () => {
    const asCaller = await callAs(sys.signer, { kind: 'caller', caller: callerOf('u_payer') }, 'r', 10_000);
    const result = await failure(h.charge({ payer: user('u_payer'), operation: 'search', reference: 'search:by_caller' }, asCaller));
    expect(result.status).toBe(Status.PERMISSION_DENIED);
  });

  it('50 parallel identical charges post one entry and move the balance once', async () => {
    const before = await h.balance(user('u_payer'));
    const results = await Promise.all(
      Array.from({ length: 50 }, () => h.charge({ payer: user('u_payer'), operation: 'enrichment_deep', reference: 'enrichment_deep:run_same:p1' })),
    );
    expect(results.filter((r) => r.created)).toHaveLength(1);
    expect(new Set(results.map((r) => r.entry!.id)).size).toBe(1);
    expect(await h.balance(user('u_payer'))).toBe(before - 8);
  });

  it('50 parallel distinct charges leave the exact balance', async () => {
    const before = await h.balance(user('u_payer'));
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) => h.charge({ payer: user('u_payer'), operation: 'enrichment_standard', reference: `enrichment_standard:run_many:p${i}` })),
    );
    expect(results.every((r) => r.created)).toBe(true);
    expect(await h.balance(user('u_payer'))).toBe(before - 50 * 3);
    // One unbroken chain of balances: no two charges saw the same starting balance.
    expect(new Set(results.map((r) => r.entry!.balanceAfter)).size).toBe(50);
  });

  it('a charge sent again under the same reference, after other charges, is charged once and answers the first entry', async () => {
    // What a caller does when it cannot know whether its charge went through (it stopped between
    // posting it and recording that it had): it sends the same charge again. No process is killed
    // here; the crash itself is covered by test/postgres/enrichment-resume.test.ts.
    const first = await h.charge({ payer: user('u_payer'), operation: 'search', reference: 'search:s_crash', credentialId: 'k_payer' });
    const afterFirst = await h.balance(user('u_payer'));
    await h.charge({ payer: user('u_payer'), operation: 'search', reference: 'search:s_other_meanwhile' });
    const replay = await h.charge({ payer: user('u_payer'), operation: 'search', reference: 'search:s_crash', credentialId: 'k_payer' });
    expect(replay.created).toBe(false);
    expect(replay.entry).toEqual(first.entry);
    expect(await h.balance(user('u_payer'))).toBe(afterFirst - 1);
  });

  it('a reference reused for another payer or quantity is a conflict', async () => {
    await h.charge({ payer: user('u_payer'), operation: 'enrichment_quick', units: 2, reference: 'enrichment_quick:run_c:p1' });
    const otherPayer = await failure(h.charge({ payer: user('u_paid'), operation: 'enrichment_quick', units: 2, reference: 'enrichment_quick:run_c:p1' }));
    expect(otherPayer.code).toBe('conflict');
    const otherUnits = await failure(h.charge({ payer: user('u_payer'), operation: 'enrichment_quick', units: 3, reference: 'enrichment_quick:run_c:p1' }));
    expect(otherUnits.code).toBe('conflict');
  });

  it('lets a balance go below zero (post-hoc metering)', async () => {
    expect(await h.balance(user('u_broke'))).toBe(0);
    await h.charge({ payer: user('u_broke'), operation: 'enrichment_deep', reference: 'enrichment_deep:run_neg:p1' });
    expect(await h.balance(user('u_broke'))).toBe(-8);
  });

  it('CheckFunds always succeeds; covered says whether the payer could cover it', async () => {
    const ok = await h.checkFunds(callerOf('u_payer'), 'search');
    expect(ok).toMatchObject({ covered: true, payer: { payer: user('u_payer'), payerName: 'Pat Payer', source: PayerSource.PAYER_SOURCE_CALLER } });
    const broke = await h.checkFunds(callerOf('u_broke'), 'search');
    expect(broke).toMatchObject({ covered: false, payer: { payer: user('u_broke'), payerName: 'Bo Broke' } });
    const uncovered = await h.checkFunds(callerOf('u_member'), 'search', 'c_plain');
    expect(uncovered.covered).toBe(false);
    // The community enrichment is the owner's: 5 deep profiles = 40 credits of o_lab's 100.
    expect(await h.checkFunds(callerOf('u_member'), 'enrichment_deep', 'c_plain', 5)).toMatchObject({
      covered: true, payer: { payer: organization('o_lab'), source: PayerSource.PAYER_SOURCE_COMMUNITY_OWNER },
    });
    expect((await h.checkFunds(callerOf('u_member'), 'enrichment_deep', 'c_plain', 13)).covered).toBe(false);
  });

  it('self-enrich on a paid plan: 1 credit, once per run', async () => {
    const before = await h.balance(user('u_paid'));
    const first = await h.meterSelfEnrich(callerOf('u_paid'), 'run_paid_1');
    expect(first.entry).toMatchObject({ owner: user('u_paid'), amount: -1, rate: 1, operation: 'enrichment_self', reference: 'enrichment_self:run_paid_1', credentialId: 'k_u_paid' });
    expect(first.availableAt).toBeUndefined();
    const again = await Promise.all(Array.from({ length: 10 }, () => h.meterSelfEnrich(callerOf('u_paid'), 'run_paid_1')));
    for (const r of again) expect(r.entry!.id).toBe(first.entry!.id);
    expect(await h.balance(user('u_paid'))).toBe(before - 1);
    // Another run is another charge, with no cooldown.
    await h.meterSelfEnrich(callerOf('u_paid'), 'run_paid_2');
    expect(await h.balance(user('u_paid'))).toBe(before - 2);
  });

  it('self-enrich without a paid plan: no charge, then a 30-day cooldown (429 rate_limited with available_at)', async () => {
    const started = Date.now();
    const first = await h.meterSelfEnrich(callerOf('u_free'), 'run_free_1');
    expect(first.entry).toBeUndefined();
    const availableAt = Date.parse(first.availableAt!);
    expect(Math.abs(availableAt - (started + 30 * DAY))).toBeLessThan(60_000);
    expect(await h.balance(user('u_free'))).toBe(0);

    // The same run metered again is not a second use.
    expect((await h.meterSelfEnrich(callerOf('u_free'), 'run_free_1')).availableAt).toBe(first.availableAt);

    const refused = await failure(h.meterSelfEnrich(callerOf('u_free'), 'run_free_2'));
    expect(refused.code).toBe('rate_limited');
    expect(refused.metadata.available_at).toBe(first.availableAt);
    const http = fromRemote(refused.error);
    expect(http).toMatchObject({ status: 429, code: 'rate_limited', extras: { available_at: first.availableAt } });
    expect(await h.balance(user('u_free'))).toBe(0);
  });

  it('a trial is not a paid plan', async () => {
    const first = await h.meterSelfEnrich(callerOf('u_trial'), 'run_trial_1');
    expect(first.entry).toBeUndefined();
    expect((await failure(h.meterSelfEnrich(callerOf('u_trial'), 'run_trial_2'))).code).toBe('rate_limited');
    expect(await h.balance(user('u_trial'))).toBe(0);
  });

  it('concurrent free self-enriches: exactly one is allowed', async () => {
    const results = await Promise.allSettled(Array.from({ length: 10 }, (_, i) => h.meterSelfEnrich(callerOf('u_race'), `run_race_${i}`)));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    for (const r of results) {
      if (r.status === 'rejected') expect(readRemoteError(r.reason)?.code).toBe('rate_limited');
    }
  });

  it('a legacy organization key cannot self-enrich (no user): forbidden', async () => {
    expect((await failure(h.meterSelfEnrich(legacyCaller('o_lab'), 'run_legacy'))).code).toBe('forbidden');
    expect((await failure(h.meterSelfEnrich(callerOf('u_paid'), ' '))).code).toBe('invalid_request');
  });

  it('reconciliation finds no mismatch (gRPC and `billing reconcile`); `billing rates` lists the rates', async () => {
    const result = await h.reconcile();
    expect(result.mismatches).toEqual([]);
    expect(result.walletsChecked).toBeGreaterThanOrEqual(5); // the seeded wallets, at least

    const cli = await runCli(sys, ['billing', 'reconcile']);
    expect(cli.stderr).toBe('');
    expect(cli.code).toBe(0);
    expect(JSON.parse(cli.stdout)).toEqual({ wallets_checked: result.walletsChecked, mismatches: [] });

    const rates = await runCli(sys, ['billing', 'rates']);
    expect(rates.code).toBe(0);
    expect(JSON.parse(rates.stdout).rates).toContainEqual({ operation: 'enrichment_deep', credits_per_unit: 8 });
  });

  // Damaging a wallet needs a second connection to the store, which an in-memory PGlite cannot give.
  if (store === 'postgres') {
    it('`billing reconcile` exits non-zero and lists a wallet that no longer matches its ledger', async () => {
      const db = new pg.Client({ connectionString: sys.env.DATABASE_URL });
      await db.connect();
      try {
        // Damage one wallet behind the ledger's back, as only a bug or a hand edit could.
        await db.query("UPDATE billing.wallets SET balance = balance + 7 WHERE owner_type = 'user' AND owner_id = 'u_payer'");
        const payer = await h.balance(user('u_payer'));
        const cli = await runCli(sys, ['billing', 'reconcile']);
        expect(cli.code).not.toBe(0);
        expect(cli.stderr).toMatch(/1 wallet\(s\) do not match/);
        expect(JSON.parse(cli.stdout).mismatches).toEqual([{ owner: 'user:u_payer', balance: payer, ledger_sum: payer - 7 }]);
      } finally {
        await db.query("UPDATE billing.wallets SET balance = balance - 7 WHERE owner_type = 'user' AND owner_id = 'u_payer'");
        await db.end();
      }
      expect((await h.reconcile()).mismatches).toEqual([]);
    });
  }
});

describe('CREDIT_RATES overrides the rates', () => {
  let sys: TestSystem;
  const h = harness(() => sys);
  beforeAll(async () => {
    // The billing service reads CREDIT_RATES from its process environment when it starts.
    const saved = process.env.CREDIT_RATES;
    process.env.CREDIT_RATES = JSON.stringify({ search: 2, enrichment_deep: 10 });
    try {
      sys = await startTestSystem({ seed });
    } finally {
      if (saved === undefined) delete process.env.CREDIT_RATES;
      else process.env.CREDIT_RATES = saved;
    }
  });
  afterAll(async () => sys?.stop());

  it('lists and charges the configured rates, the defaults for the rest', async () => {
    const { rates } = await sys.clients.billing.listRates({}, await h.operator());
    expect(Object.fromEntries(rates.map((r) => [r.operation, r.creditsPerUnit]))).toEqual({
      search: 2, enrichment_self: 1, enrichment_quick: 1, enrichment_standard: 3, enrichment_deep: 10,
    });
    const { entry } = await h.charge({ payer: user('u_payer'), operation: 'enrichment_deep', units: 2, reference: 'enrichment_deep:r:p' });
    expect(entry).toMatchObject({ amount: -20, rate: 10 });
    expect((await h.charge({ payer: user('u_payer'), operation: 'search', reference: 'search:s' })).entry).toMatchObject({ amount: -2, rate: 2 });
  });
});
