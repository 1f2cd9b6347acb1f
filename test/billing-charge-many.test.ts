// ChargeMany, how an enrichment run pays for its people: one posting per batch on the payer's
// wallet, each reference still charged exactly once — in order, on retries, with a reference given
// twice, against concurrent postings of the same references, and never for another payer's
// reference. Through the running system over gRPC, on both stores.
import { Status } from 'nice-grpc';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callAs } from '../services/kit/grpc/client.js';
import { storeNames } from './helpers/stores.js';
import { startTestSystem, type TestSystem } from './helpers/test-system.js';
import { callerOf, failure, harness, seed, user } from './helpers/billing-metering.js';

describe.each(storeNames())('ChargeMany on %s', (store) => {
  let sys: TestSystem;
  const h = harness(() => sys);
  beforeAll(async () => {
    sys = await startTestSystem({ store, seed });
  });
  afterAll(async () => sys?.stop());

  const refs = (run: string, n: number, from = 0) => Array.from({ length: n }, (_, i) => `enrichment_standard:${run}:p${from + i}`);
  const history = async (n: number) =>
    (await sys.clients.billing.listLedgerEntries({ owner: user('u_payer'), pageSize: n, pageToken: '' }, await h.operator())).entries;

  it('posts one entry per reference at the rate, balances running in the order given, listed newest first', async () => {
    const before = await h.balance(user('u_payer'));
    const references = refs('run_order', 5);
    const { charges } = await h.chargeMany({ payer: user('u_payer'), operation: 'enrichment_standard', references, credentialId: 'k_payer', communityId: 'c_lab' });
    expect(charges.map((c) => [c.entry!.reference, c.entry!.amount, c.entry!.rate, c.entry!.credentialId, c.created])).toEqual(references.map((r) => [r, -3, 3, 'k_payer', true]));
    expect(charges.map((c) => c.entry!.balanceAfter)).toEqual([1, 2, 3, 4, 5].map((i) => before - 3 * i));
    expect(await h.balance(user('u_payer'))).toBe(before - 15);
    expect((await history(5)).map((e) => e.reference)).toEqual([...references].reverse());
    expect((await h.reconcile()).mismatches).toEqual([]);
  });

  it('charges what a retry adds and answers what was posted before unchanged; a reference given twice is charged once', async () => {
    const first = await h.chargeMany({ payer: user('u_payer'), operation: 'enrichment_standard', references: refs('run_retry', 3) });
    const before = await h.balance(user('u_payer'));
    const retry = await h.chargeMany({ payer: user('u_payer'), operation: 'enrichment_standard', references: [...refs('run_retry', 5), ...refs('run_retry', 1, 4)] });
    expect(retry.charges.map((c) => c.created)).toEqual([false, false, false, true, true]);
    expect(retry.charges.slice(0, 3).map((c) => c.entry)).toEqual(first.charges.map((c) => c.entry));
    expect(await h.balance(user('u_payer'))).toBe(before - 6);
  });

  it('charges each reference once when overlapping batches and single charges race', async () => {
    const before = await h.balance(user('u_payer'));
    const results = await Promise.all([
      h.chargeMany({ payer: user('u_payer'), operation: 'enrichment_standard', references: refs('run_race', 20) }),
      h.chargeMany({ payer: user('u_payer'), operation: 'enrichment_standard', references: refs('run_race', 20, 10) }),
      h.chargeMany({ payer: user('u_payer'), operation: 'enrichment_standard', references: refs('run_race', 30).reverse() }),
      ...refs('run_race', 30).map((reference) => h.charge({ payer: user('u_payer'), operation: 'enrichment_standard', reference })),
    ]);
    const created = results.flatMap((r) => ('charges' in r ? r.charges : [r])).filter((c) => c.created).map((c) => c.entry!.reference);
    expect(created.sort()).toEqual(refs('run_race', 30).sort());
    expect(await h.balance(user('u_payer'))).toBe(before - 30 * 3);
    expect((await h.reconcile()).mismatches).toEqual([]);
  });

  it('refuses a reference already charged to another payer as a conflict; the batch’s other references stand', async () => {
    await h.charge({ payer: user('u_paid'), operation: 'enrichment_standard', reference: 'enrichment_standard:run_foreign:p0' });
    const before = await h.balance(user('u_payer'));
    const refused = await failure(h.chargeMany({ payer: user('u_payer'), operation: 'enrichment_standard', references: refs('run_foreign', 3) }));
    expect(refused.code).toBe('conflict');
    expect(await h.balance(user('u_payer'))).toBe(before - 6);
    const again = await h.chargeMany({ payer: user('u_payer'), operation: 'enrichment_standard', references: refs('run_foreign', 2, 1) });
    expect(again.charges.map((c) => c.created)).toEqual([false, false]);
  });

  it('refuses no references, a reference of another operation, and a caller, posting nothing', async () => {
    const before = await h.balance(user('u_payer'));
    expect((await failure(h.chargeMany({ payer: user('u_payer'), operation: 'enrichment_standard', references: [] }))).code).toBe('invalid_request');
    const mixed = await failure(h.chargeMany({ payer: user('u_payer'), operation: 'enrichment_standard', references: ['enrichment_standard:run_bad:p0', 'search:s_1'] }));
    expect(mixed.code).toBe('invalid_request');
    const asCaller = await callAs(sys.signer, { kind: 'caller', caller: callerOf('u_payer') }, 'r', 10_000);
    expect((await failure(h.chargeMany({ payer: user('u_payer'), operation: 'enrichment_standard', references: refs('run_caller', 1) }, asCaller))).status).toBe(Status.PERMISSION_DENIED);
    expect(await h.balance(user('u_payer'))).toBe(before);
  });
});
