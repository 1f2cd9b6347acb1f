// Community enrichment runs over real HTTP on every store: eligibility, runs and their items,
// billing once per enriched person, results in the member read, the roster and the search corpus,
// and Idempotency-Key under 20 parallel starts.
import { describe, expect, it } from 'vitest';
import { bearer, request, type JsonResponse } from './helpers/http.js';
import { enrichmentSuite, k, LAB_MEMBERS, people } from './helpers/enrichment-suite.js';
import { storeNames } from './helpers/stores.js';

describe.each(storeNames())('enrichment on %s', (store) => {
  const { system, enrich, communityPoll, selfPoll, until, labCharges } = enrichmentSuite(store);

  describe('community runs', () => {
    // The first run, started by whichever test needs it first: each test stands alone.
    let firstRunStart: Promise<JsonResponse> | undefined;
    const startFirstRun = () =>
      (firstRunStart ??= enrich(k.owner, 'c_lab', { depth: 'quick', profile_ids: people.slice(0, 6).map((p) => p.id).concat('p_closed') }));
    const firstRunFinished = async () => {
      const run = await startFirstRun();
      expect(run.status, JSON.stringify(run.body)).toBe(202);
      await until(() => communityPoll(k.poller, 'c_lab', run.body.run_id));
      return run;
    };

    it('starts: 202 with the queued run, Location and Retry-After; the poll shows it finished with every person', async () => {
      const firstRun = await startFirstRun();
      expect(firstRun.status, JSON.stringify(firstRun.body)).toBe(202);
      const runId = firstRun.body.run_id;
      expect(firstRun.body).toMatchObject({
        kind: 'community',
        community_id: 'c_lab',
        status: 'queued',
        depth: 'quick',
        eligible_count: 6,
        credits_charged: 0,
        started_at: null,
        finished_at: null,
      });
      expect(Math.abs(Date.parse(firstRun.body.created_at) - Date.now())).toBeLessThan(60_000);
      expect(firstRun.headers.get('location')).toBe(`/v1/communities/c_lab/enrich/runs/${runId}`);
      expect(firstRun.headers.get('retry-after')).toBe('2');

      const done = await until(() => communityPoll(k.poller, 'c_lab', runId));
      expect(done.body).toMatchObject({
        run_id: runId,
        status: 'succeeded',
        depth: 'quick',
        counts: { total: 7, succeeded: 6, failed: 0, skipped: 1 },
        credits_charged: 6,
        next_items_after: null,
      });
      expect(done.body.started_at).not.toBeNull();
      expect(done.body.finished_at).not.toBeNull();
      expect(done.body.items.find((i: { profile_id: string }) => i.profile_id === 'p_closed')).toEqual({
        profile_id: 'p_closed',
        status: 'skipped',
        reason: 'not a member of this community',
        credits_charged: 0,
      });
      expect(done.body.items.filter((i: { status: string }) => i.status === 'succeeded').every((i: { credits_charged: number }) => i.credits_charged === 1)).toBe(true);
    });

    it('charges the community billing owner one flat marker per enriched person, exactly once', async () => {
      const firstRun = await firstRunFinished();
      const charges = await labCharges(firstRun.body.run_id);
      expect(charges.map((c) => c.reference).sort()).toEqual(people.slice(0, 6).map((p) => `enrichment_quick:${firstRun.body.run_id}:${p.id}`).sort());
      expect(charges.every((c) => c.amount === -1)).toBe(true);
    });

    it('the results land in the member read and the roster', async () => {
      await firstRunFinished();
      const member = await request(system().restUrl, 'GET', '/v1/communities/c_lab/members/p_m00', { headers: bearer(k.owner) });
      expect(member.status).toBe(200);
      expect(member.body.enrichment).toMatchObject({ depth: 'quick' });
      expect(member.body.enrichment.data.topics).toEqual(expect.arrayContaining([expect.stringMatching(/protein/)]));
      // Only this community's enrichment: p_m00 is also in c_other, never enriched there.
      const other = await request(system().restUrl, 'GET', '/v1/communities/c_other/members/p_m00', { headers: bearer(k.owner) });
      expect(other.body.enrichment).toBeNull();
      const roster = await request(system().restUrl, 'GET', '/v1/communities/c_lab/members?limit=200', { headers: bearer(k.owner) });
      const enriched = roster.body.members.filter((m: { enriched_at: string | null }) => m.enriched_at !== null).map((m: { profile_id: string }) => m.profile_id);
      expect(enriched.sort()).toEqual(people.slice(0, 6).map((p) => p.id));
    });

    it('already enriched members are skipped unless asked for; a deeper tier makes them eligible again', async () => {
      await firstRunFinished();
      const ids = people.slice(0, 3).map((p) => p.id);
      expect((await enrich(k.owner, 'c_lab', { depth: 'quick', dry_run: true, profile_ids: ids })).body.eligible_count).toBe(0);
      expect((await enrich(k.owner, 'c_lab', { depth: 'quick', dry_run: true, profile_ids: ids, include_already_enriched: true })).body.eligible_count).toBe(3);
      expect((await enrich(k.owner, 'c_lab', { depth: 'standard', dry_run: true, profile_ids: ids })).body.eligible_count).toBe(3);

      const run = await enrich(k.owner, 'c_lab', { depth: 'quick', profile_ids: ids });
      expect(run.status).toBe(202);
      expect(run.body.eligible_count).toBe(0);
      const done = await until(() => communityPoll(k.owner, 'c_lab', run.body.run_id));
      expect(done.body).toMatchObject({ status: 'succeeded', counts: { total: 3, succeeded: 0, skipped: 3 }, credits_charged: 0 });
      expect(done.body.items[0].reason).toMatch(/already enriched/);
      expect(await labCharges(run.body.run_id)).toEqual([]);
    });

    it('a standard run calls ORCID and OpenAlex; a step that cannot run is skipped with its reason, and still charged the flat price', async () => {
      const run = await enrich(k.owner, 'c_lab', { depth: 'standard', profile_ids: ['p_researcher', 'p_m07'] });
      expect(run.status).toBe(202);
      const done = await until(() => communityPoll(k.owner, 'c_lab', run.body.run_id));
      expect(done.body).toMatchObject({ status: 'succeeded', counts: { total: 2, succeeded: 2 }, credits_charged: 6 });
      const researcher = await request(system().restUrl, 'GET', '/v1/communities/c_lab/members/p_researcher', { headers: bearer(k.owner) });
      expect(researcher.body.enrichment.depth).toBe('standard');
      expect(researcher.body.enrichment.data.orcid).toBeDefined();
      expect(researcher.body.enrichment.data.openalex).toBeDefined();
      const plain = await request(system().restUrl, 'GET', '/v1/communities/c_lab/members/p_m07', { headers: bearer(k.owner) });
      const orcidStep = plain.body.enrichment.data.steps.find((s: { step: string }) => s.step === 'orcid');
      expect(orcidStep).toMatchObject({ status: 'skipped' });
      expect(orcidStep.reason).toBeTruthy();
      expect((await labCharges(run.body.run_id)).map((c) => c.amount)).toEqual([-3, -3]);
    });

    it('joined_since selects the members a started run is about', async () => {
      const run = await enrich(k.owner, 'c_lab', { depth: 'deep', joined_since: '2026-06-01T00:00:00Z' });
      expect(run.status).toBe(202);
      // Joined in June: the two members of month 6 and the researcher.
      expect(run.body.eligible_count).toBe(3);
      const done = await until(() => communityPoll(k.owner, 'c_lab', run.body.run_id));
      expect(done.body.items.map((i: { profile_id: string }) => i.profile_id).sort()).toEqual(['p_m05', 'p_m11', 'p_researcher']);
      expect(done.body).toMatchObject({ status: 'succeeded', depth: 'deep', credits_charged: 24 });
    });

    it('the enrichment text reaches the community search corpus', async () => {
      const res = await request(system().restUrl, 'POST', '/v1/search', {
        headers: bearer(k.search),
        body: { query: 'cryo-electron microscopy', scope: 'community', community_id: 'c_lab', wait_seconds: 10 },
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.matches.map((m: { profile_id: string }) => m.profile_id)).toEqual(expect.arrayContaining(['p_m00']));
      // Credit enforcement is off: the search is served and debited although the payer had no
      // credits, leaving the balance below zero.
      const me = await request(system().restUrl, 'GET', '/v1/me', { headers: bearer(k.search) });
      expect(me.body.credit_balance).toBe(-1);
    });

    it('a poll is fenced: another community, an unknown id → 404; outside the read reach → 403; without enrich:read → 403', async () => {
      const firstRun = await firstRunFinished();
      const runId = firstRun.body.run_id;
      expect((await communityPoll(k.owner, 'c_other', runId)).status).toBe(404);
      expect((await communityPoll(k.owner, 'c_lab', 'run_unknown')).status).toBe(404);
      expect((await communityPoll(k.outsider, 'c_lab', runId)).status).toBe(403);
      const noScope = await communityPoll(k.read, 'c_lab', runId);
      expect(noScope.status).toBe(403);
      expect(noScope.body.error.required_scope).toBe('enrich:read');
      // Not a self run either.
      expect((await selfPoll(k.selfOther, runId)).status).toBe(404);
    });

    it('pages the items of a large run with items_after', async () => {
      const run = await enrich(k.owner, 'c_lab', { depth: 'quick', include_already_enriched: true });
      expect(run.status).toBe(202);
      const done = await until(() => communityPoll(k.owner, 'c_lab', run.body.run_id));
      expect(done.body.counts.total).toBe(LAB_MEMBERS);
      expect(done.body.items).toHaveLength(LAB_MEMBERS);
      const page = await communityPoll(k.owner, 'c_lab', run.body.run_id, `?items_after=${done.body.items[4].profile_id}`);
      expect(page.body.items[0].profile_id).toBe(done.body.items[5].profile_id);
      expect((await communityPoll(k.owner, 'c_lab', run.body.run_id, '?items_after=')).status).toBe(400);
    });

    it('20 parallel identical starts under one Idempotency-Key: one run, charged once per person', async () => {
      const body = { depth: 'quick', profile_ids: ['p_m08', 'p_m09'], include_already_enriched: true };
      const headers = { 'idempotency-key': `enrich-${store}-race` };
      const answers = await Promise.all(Array.from({ length: 20 }, () => enrich(k.owner, 'c_lab', body, headers)));
      const accepted = answers.filter((a) => a.status === 202);
      // Any call that found the first still in flight is told to retry (409); none started another run.
      expect(answers.every((a) => a.status === 202 || a.status === 409)).toBe(true);
      expect(new Set(accepted.map((a) => a.body.run_id)).size).toBe(1);
      const runId = accepted[0]!.body.run_id;
      const retry = await enrich(k.owner, 'c_lab', body, headers);
      expect(retry.status).toBe(202);
      expect(retry.body.run_id).toBe(runId);
      expect(retry.headers.get('idempotent-replayed')).toBe('true');
      await until(() => communityPoll(k.owner, 'c_lab', runId));
      expect((await labCharges(runId)).length).toBe(2);
      const different = await enrich(k.owner, 'c_lab', { ...body, depth: 'deep' }, headers);
      expect(different.status).toBe(422);
    });
  });

});
