// The funds check with CREDIT_ENFORCEMENT=on, through the running system over gRPC: the 402-class
// errors name the payer, the edge maps them, and a charge itself is never refused.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fromRemote } from '../gateway/core/api-error.js';
import { PayerSource } from '../proto/gen/expertnet/billing/v1/billing_service.js';
import { storeNames } from './helpers/stores.js';
import { startTestSystem, type TestSystem } from './helpers/test-system.js';
import { callerOf, failure, harness, legacyCaller, organization, seed, user } from './helpers/billing-metering.js';

describe.each(storeNames())('billing enforcement on %s (CREDIT_ENFORCEMENT=on)', (store) => {
  let sys: TestSystem;
  const h = harness(() => sys);
  beforeAll(async () => {
    sys = await startTestSystem({ store, seed, env: { CREDIT_ENFORCEMENT: 'on' } });
    const operator = await h.operator();
    await sys.clients.billing.setOrganizationFunding({ organizationId: 'o_lab', communityId: 'c_budget', standingFunding: false, delegationBudgetPerMonth: 5 }, operator);
    await sys.clients.billing.setOrganizationFunding({ organizationId: 'o_lab', communityId: 'c_funded', standingFunding: true, delegationBudgetPerMonth: 0 }, operator);
  });
  afterAll(async () => {
    expect((await h.reconcile()).mismatches).toEqual([]);
    await sys?.stop();
  });

  it('insufficient_credits names the payer; the edge answers 402 with the payer in the envelope', async () => {
    const refused = await failure(h.checkFunds(callerOf('u_broke'), 'search'));
    expect(refused.code).toBe('insufficient_credits');
    expect(JSON.parse(refused.metadata.payer!)).toEqual({ type: 'user', id: 'u_broke', name: 'Bo Broke' });
    const http = fromRemote(refused.error);
    expect(http.status).toBe(402);
    expect(http.code).toBe('insufficient_credits');
    expect(http.extras).toEqual({ payer: { type: 'user', id: 'u_broke', name: 'Bo Broke' } });
  });

  it('a payer with enough credits passes; the cost is rate × units', async () => {
    expect(await h.checkFunds(callerOf('u_payer'), 'search')).toMatchObject({ covered: true, payer: { payer: user('u_payer') } });
    // 12 deep profiles = 96 ≤ 100; 13 = 104 > 100, o_lab named.
    expect((await h.checkFunds(callerOf('u_member'), 'enrichment_deep', 'c_plain', 12)).covered).toBe(true);
    const over = await failure(h.checkFunds(callerOf('u_member'), 'enrichment_deep', 'c_plain', 13));
    expect(over.code).toBe('insufficient_credits');
    expect(JSON.parse(over.metadata.payer!)).toEqual({ type: 'organization', id: 'o_lab', name: 'The Lab' });
  });

  it('coverage_required: a member searches an organization community the organization does not cover', async () => {
    const refused = await failure(h.checkFunds(callerOf('u_member'), 'search', 'c_plain'));
    expect(refused.code).toBe('coverage_required');
    expect(JSON.parse(refused.metadata.payer!)).toEqual({ type: 'organization', id: 'o_lab', name: 'The Lab' });
    expect(fromRemote(refused.error)).toMatchObject({ status: 402, extras: { payer: { type: 'organization', id: 'o_lab' } } });
    // The organization's manager pays their own way; so does the organization's own (legacy) key.
    expect(await h.checkFunds(callerOf('u_manager'), 'search', 'c_plain')).toMatchObject({ covered: true, payer: { payer: user('u_manager') } });
    expect(await h.checkFunds(legacyCaller('o_lab'), 'search', 'c_plain')).toMatchObject({ covered: true, payer: { payer: organization('o_lab') } });
    // A user's own community is not an organization's affair.
    expect((await h.checkFunds(callerOf('u_member'), 'search', 'c_own')).covered).toBe(true);
  });

  it('standing funding covers the community: the organization pays', async () => {
    expect(await h.checkFunds(callerOf('u_member'), 'search', 'c_funded')).toMatchObject({
      covered: true, payer: { payer: organization('o_lab'), source: PayerSource.PAYER_SOURCE_STANDING_FUNDING },
    });
  });

  it('community_over_quota: the month\'s delegation budget left is below the cost', async () => {
    const ok = await h.checkFunds(callerOf('u_member'), 'search', 'c_budget', 5);
    expect(ok).toMatchObject({ covered: true, payer: { payer: organization('o_lab'), source: PayerSource.PAYER_SOURCE_DELEGATION_BUDGET } });
    const tooMuch = await failure(h.checkFunds(callerOf('u_member'), 'search', 'c_budget', 6));
    expect(tooMuch.code).toBe('community_over_quota');
    expect(JSON.parse(tooMuch.metadata.payer!)).toEqual({ type: 'organization', id: 'o_lab', name: 'The Lab' });
    expect(fromRemote(tooMuch.error).status).toBe(402);

    // Charges named to the community count against the budget, once per reference.
    for (let i = 0; i < 2; i++) {
      await h.charge({ payer: organization('o_lab'), operation: 'search', units: 4, reference: 'search:s_budget_1', communityId: 'c_budget' });
    }
    expect((await h.checkFunds(callerOf('u_member'), 'search', 'c_budget', 1)).covered).toBe(true);
    expect((await failure(h.checkFunds(callerOf('u_member'), 'search', 'c_budget', 2))).code).toBe('community_over_quota');
    await h.charge({ payer: organization('o_lab'), operation: 'search', units: 1, reference: 'search:s_budget_2', communityId: 'c_budget' });
    // Used up: resolution falls back to the caller, which the budget's owner does not allow.
    const spent = await failure(h.checkFunds(callerOf('u_member'), 'search', 'c_budget', 1));
    expect(spent.code).toBe('community_over_quota');
    expect(JSON.parse(spent.metadata.payer!)).toMatchObject({ type: 'organization', id: 'o_lab' });
    // ... while the organization's manager may pay personally.
    expect(await h.checkFunds(callerOf('u_manager'), 'search', 'c_budget', 1)).toMatchObject({ covered: true, payer: { payer: user('u_manager') } });
  });

  it('a charge is never refused (post-hoc): it may take a balance below zero', async () => {
    await h.charge({ payer: user('u_broke'), operation: 'search', reference: 'search:s_broke' });
    expect(await h.balance(user('u_broke'))).toBe(-1);
  });

  it('self-enrich on a paid plan without credits is refused before charging', async () => {
    const refused = await failure(h.meterSelfEnrich(callerOf('u_paid_poor'), 'run_poor'));
    expect(refused.code).toBe('insufficient_credits');
    expect(JSON.parse(refused.metadata.payer!)).toEqual({ type: 'user', id: 'u_paid_poor', name: 'Poor Paid' });
    expect(await h.balance(user('u_paid_poor'))).toBe(0);
    expect((await h.meterSelfEnrich(callerOf('u_paid'), 'run_rich')).entry).toMatchObject({ amount: -1 });
  });
});
