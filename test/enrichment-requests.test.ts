// Enrichment requests refused or only estimated, over real HTTP on every store: the request rules
// (400, nothing started), scopes and write gating, and dry runs (nothing started, nothing charged).
import { describe, expect, it } from 'vitest';
import { OwnerType } from '../proto/gen/expertnet/common/v1/common.js';
import { ConsentStatus } from '../proto/gen/expertnet/communities/v1/communities_service.js';
import { callAs } from '../services/kit/grpc/client.js';
import { enrichmentSuite, k, LAB_MEMBERS } from './helpers/enrichment-suite.js';
import { storeNames } from './helpers/stores.js';

describe.each(storeNames())('enrichment on %s', (store) => {
  const { system, enrich, communityPoll, until, ledger, LAB, labCharges, consentRequests } = enrichmentSuite(store);

  describe('request rules (400, nothing started)', () => {
    it.each([
      ['a start without depth', {}],
      ['an unknown depth', { depth: 'extreme' }],
      ['a workflow other than smart_enrich', { depth: 'quick', workflow_key: 'other' }],
      ['an unknown field', { depth: 'quick', everyone: true }],
      ['a malformed joined_since', { depth: 'quick', joined_since: 'yesterday' }],
      ['profile_ids that are not ids', { depth: 'quick', profile_ids: [''] }],
      ['more than 10,000 profile_ids', { depth: 'quick', profile_ids: Array.from({ length: 10_001 }, (_, i) => `p_${i}`) }],
    ])('%s', async (_what, body) => {
      const before = await ledger(LAB, 'enrichment_');
      const res = await enrich(k.owner, 'c_lab', body);
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      expect(res.body.error.code).toBe('invalid_request');
      expect(res.body.error.request_id).toBe(res.headers.get('x-request-id'));
      expect(await ledger(LAB, 'enrichment_')).toEqual(before);
    });

    it('says that depth is what a start lacks', async () => {
      const res = await enrich(k.owner, 'c_lab', { dry_run: false });
      expect(res.body.error.message).toMatch(/depth is required/);
    });
  });

  describe('scopes and write gating', () => {
    it('a key without enrich:write is 403 naming the scope', async () => {
      const res = await enrich(k.read, 'c_lab', { depth: 'quick' });
      expect(res.status).toBe(403);
      expect(res.body.error).toMatchObject({ code: 'forbidden', required_scope: 'enrich:write' });
    });

    it('a community outside the write reach is 403, a dry run too', async () => {
      expect((await enrich(k.outsider, 'c_lab', { depth: 'quick' })).status).toBe(403);
      expect((await enrich(k.outsider, 'c_lab', { depth: 'quick', dry_run: true })).status).toBe(403);
    });

    it('writes not attested: 422 unprocessable, and nothing queued', async () => {
      const res = await enrich(k.closed, 'c_closed', { depth: 'quick' });
      expect(res.status).toBe(422);
      expect(res.body.error.code).toBe('unprocessable');
      expect(await consentRequests('c_closed')).toEqual([]);
    });

    it('with just-in-time consent: 422 owner_consent_required queues one request', async () => {
      const res = await enrich(k.jit, 'c_jit', { depth: 'quick' });
      expect(res.status).toBe(422);
      expect(res.body.error.code).toBe('owner_consent_required');
      const queued = await consentRequests('c_jit');
      expect(queued).toHaveLength(1);
      // The queue says what the run is: its depth, the people it would enrich and their credits.
      expect(queued[0]!.description).toBe('enrichment run at depth quick: 1 eligible of 1 members, estimated 1 credits');
    });

    it('a community admin (personal key) may start a run, charged to the community’s billing owner; a plain member may not', async () => {
      expect((await enrich(k.plain, 'c_other', { depth: 'quick', dry_run: true })).status).toBe(403);
      expect((await enrich(k.plain, 'c_other', { depth: 'quick' })).status).toBe(403);
      const run = await enrich(k.cadmin, 'c_other', { depth: 'quick', profile_ids: ['p_plain'] });
      expect(run.status, JSON.stringify(run.body)).toBe(202);
      const done = await until(() => communityPoll(k.cadmin, 'c_other', run.body.run_id));
      expect(done.body).toMatchObject({ status: 'succeeded', counts: { succeeded: 1 }, credits_charged: 1 });
      expect((await labCharges(run.body.run_id)).map((c) => c.reference)).toEqual([`enrichment_quick:${run.body.run_id}:p_plain`]);
      expect(await ledger({ type: OwnerType.OWNER_TYPE_USER, id: 'u_cadmin' }, 'enrichment_')).toEqual([]);
    });

    it('a dry run needs no attestation and queues no consent request', async () => {
      const res = await enrich(k.jit, 'c_jit', { depth: 'deep', dry_run: true });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ eligible_count: 1, total_members: 1, estimated_max_credits_per_profile: 8, estimated_max_credits: 8 });
      expect(await consentRequests('c_jit')).toHaveLength(1);
    });

    it('an approval starts the run once: the same start again queues a new request', async () => {
      const [queued] = await consentRequests('c_jit');
      const operator = await callAs(system().signer, { kind: 'operator', actor: 'test' }, undefined, 10_000);
      await system().clients.communities.resolveConsentRequest({ consentRequestId: queued!.id, approve: true, actor: 'u_jit' }, operator);
      const started = await enrich(k.jit, 'c_jit', { depth: 'quick' });
      expect(started.status, JSON.stringify(started.body)).toBe(202);
      const again = await enrich(k.jit, 'c_jit', { depth: 'quick' });
      expect(again.status).toBe(422);
      expect(again.body.error.code).toBe('owner_consent_required');
      const requests = await consentRequests('c_jit');
      expect(requests.map((r) => r.status)).toEqual([ConsentStatus.CONSENT_STATUS_APPROVED, ConsentStatus.CONSENT_STATUS_PENDING]);
      expect(requests[0]!.approvalUsedAt).toBeDefined();
      expect(again.body.error.message).toContain(requests[1]!.id);
    });
  });

  describe('dry runs (200, nothing started, nothing charged)', () => {
    it('without depth: counts, and null estimates', async () => {
      const res = await enrich(k.owner, 'c_other', { dry_run: true, profile_ids: ['p_m00'] });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ eligible_count: 1, total_members: 3, estimated_max_credits_per_profile: null, estimated_max_credits: null });
    });

    it.each([
      ['quick', 1],
      ['standard', 3],
      ['deep', 8],
    ])('at %s depth: the exact flat charge per profile and in all', async (depth, price) => {
      const before = await ledger(LAB, 'enrichment_');
      const res = await enrich(k.owner, 'c_lab', { depth, dry_run: true, joined_since: '2026-03-01T00:00:00Z' });
      expect(res.status).toBe(200);
      // Members joined from March on: months 3–6 of the twelve (two each) and the researcher.
      expect(res.body).toEqual({ eligible_count: 9, total_members: LAB_MEMBERS, estimated_max_credits_per_profile: price, estimated_max_credits: 9 * price });
      expect(await ledger(LAB, 'enrichment_')).toEqual(before);
    });

    it('profile_ids narrow the estimate; a non-member is not eligible', async () => {
      const res = await enrich(k.owner, 'c_lab', { depth: 'quick', dry_run: true, profile_ids: ['p_m01', 'p_m02', 'p_closed'] });
      expect(res.body).toMatchObject({ eligible_count: 2, total_members: LAB_MEMBERS, estimated_max_credits: 2 });
    });
  });

});
