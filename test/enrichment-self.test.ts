// Self-enrichment over real HTTP on every store: the target lock, the paid charge, the free
// cooldown, the own profile, and no de-duplication against community runs.
import { describe, expect, it } from 'vitest';
import { OwnerType } from '../proto/gen/expertnet/common/v1/common.js';
import { bearer, request } from './helpers/http.js';
import { enrichmentSuite, k } from './helpers/enrichment-suite.js';
import { storeNames } from './helpers/stores.js';

describe.each(storeNames())('enrichment on %s', (store) => {
  const { system, selfEnrich, selfPoll, until, ledger } = enrichmentSuite(store);

  describe('self-enrichment', () => {
    it('needs self:enrich: a read key is 403', async () => {
      const res = await selfEnrich(k.selfRead);
      expect(res.status).toBe(403);
      expect(res.body.error.required_scope).toBe('self:enrich');
    });

    it('is target-locked: a body naming a profile is 400', async () => {
      const res = await selfEnrich(k.selfPaid, { profile_id: 'p_m00' });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('invalid_request');
    });

    it('a legacy organization key has no own profile: 403; a user without a profile: 404', async () => {
      expect((await selfEnrich(k.legacy)).status).toBe(403);
      const none = await selfEnrich(k.noProfile);
      expect(none.status).toBe(404);
      expect(none.body.error.code).toBe('not_found');
    });

    it('a paid owner: 202, charged 1 credit under enrichment_self, own profile enriched and normalised', async () => {
      const started = await selfEnrich(k.selfPaid);
      expect(started.status, JSON.stringify(started.body)).toBe(202);
      expect(started.body).toMatchObject({ kind: 'self', community_id: null, status: 'queued', depth: 'standard', credits_charged: 1 });
      expect(started.headers.get('location')).toBe(`/v1/me/enrich/runs/${started.body.run_id}`);
      const done = await until(() => selfPoll(k.selfPaid, started.body.run_id));
      expect(done.body).toMatchObject({ status: 'succeeded', counts: { total: 1, succeeded: 1 }, credits_charged: 1 });
      // One charge, one figure: the run's, its only item's and the ledger's.
      expect(done.body.items).toEqual([expect.objectContaining({ status: 'succeeded', credits_charged: 1 })]);
      const charges = await ledger({ type: OwnerType.OWNER_TYPE_USER, id: 'u_paid' }, 'enrichment_self:');
      expect(charges).toEqual([{ reference: `enrichment_self:${started.body.run_id}`, amount: -1 }]);
      const profile = await request(system().restUrl, 'GET', '/v1/me/profile', { headers: bearer(k.selfPaid) });
      expect(profile.body.name).toBe('Paid Person');
      expect(profile.body.enrichment).toMatchObject({ depth: 'standard' });
      expect(profile.body.enrichment.data.topics.length).toBeGreaterThan(0);
    });

    it('ignores Idempotency-Key: a retried POST starts and charges a second run', async () => {
      const headers = { 'idempotency-key': `self-${store}` };
      const first = await selfEnrich(k.selfPaid, {}, headers);
      const second = await selfEnrich(k.selfPaid, {}, headers);
      expect(first.status).toBe(202);
      expect(second.status).toBe(202);
      expect(second.body.run_id).not.toBe(first.body.run_id);
      expect(second.headers.get('idempotent-replayed')).toBeNull();
      const charges = await ledger({ type: OwnerType.OWNER_TYPE_USER, id: 'u_paid' }, 'enrichment_self:');
      expect(charges.map((c) => c.reference)).toEqual(expect.arrayContaining([first.body.run_id, second.body.run_id].map((id) => `enrichment_self:${id}`)));
    });

    it('a free owner: not charged, then 429 rate_limited with available_at inside the 30-day cooldown', async () => {
      const first = await selfEnrich(k.selfFree);
      expect(first.status).toBe(202);
      expect(first.body.credits_charged).toBe(0);
      await until(() => selfPoll(k.selfFree, first.body.run_id));
      const second = await selfEnrich(k.selfFree);
      expect(second.status).toBe(429);
      expect(second.body.error.code).toBe('rate_limited');
      const availableAt = Date.parse(second.body.error.available_at);
      expect(availableAt - Date.now()).toBeGreaterThan(29 * 86_400_000);
      expect(await ledger({ type: OwnerType.OWNER_TYPE_USER, id: 'u_free' }, '')).toEqual([]);
    });

    it('a poll is fenced to the caller', async () => {
      const started = await selfEnrich(k.selfPaid);
      expect((await selfPoll(k.selfOther, started.body.run_id)).status).toBe(404);
      expect((await selfPoll(k.selfPaid, 'run_unknown')).status).toBe(404);
    });
  });
});
