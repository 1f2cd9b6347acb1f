// Member write gating over real HTTP: reach, attestation and just-in-time consent decide whether an
// add goes through, waits for consent or is refused.
import { describe, expect, it } from 'vitest';
import { ConsentStatus } from '../proto/gen/expertnet/communities/v1/communities_service.js';
import { readRemoteError } from '../services/kit/grpc/errors.js';
import { storeNames } from './helpers/stores.js';
import { k, membersWriteSuite } from './helpers/members-write-suite.js';

describe.each(storeNames())('member writes on %s', (store) => {
  const { system, operator, add, erase, count } = membersWriteSuite(store);

  describe('write gating', () => {
    const one = (email: string) => ({ members: [{ email }] });

    it('lets the owning organization’s manager and a delegated community admin write', async () => {
      expect((await add(k.manager, 'c_bio', one('gate.manager@example.org'))).status).toBe(200);
      expect((await add(k.cadmin, 'c_bio', one('gate.cadmin@example.org'))).status).toBe(200);
      expect((await add(k.legacy, 'c_bio', one('gate.legacy@example.org'))).status).toBe(200);
    });

    it.each([
      ['a plain member', 'member', 'c_bio'],
      ['a key whose allowlist leaves the community out', 'narrow', 'c_bio'],
      ['an archived community', 'manager', 'c_old'],
      ['a legacy organization key on a community its organization does not own', 'legacy', 'c_foreign'],
      ['an unknown community', 'manager', 'c_nowhere'],
    ] as const)('refuses %s with 403, adding nothing', async (_label, key, community) => {
      const res = await add(k[key], community, one(`gate.${key}.${community}@example.org`));
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe('forbidden');
      expect((await erase(k[key], community, 'p_claimed')).status).toBe(403);
    });

    it('refuses a key without member:write with 403 naming the scope', async () => {
      const res = await add(k.read, 'c_bio', one('gate.read@example.org'));
      expect(res.status).toBe(403);
      expect(res.body.error).toMatchObject({ code: 'forbidden', required_scope: 'member:write' });
    });

    it('answers 422 unprocessable while writes are not attested and the owner has no just-in-time consent', async () => {
      const res = await add(k.closed, 'c_closed', one('gate.closed@example.org'));
      expect(res.status).toBe(422);
      expect(res.body.error.code).toBe('unprocessable');
      expect((await system().clients.communities.listConsentRequests({ communityId: 'c_closed', pageSize: 0, pageToken: '', status: 0 }, operator())).requests).toEqual([]);
      expect(await count('c_closed')).toBe(0);
    });

    it('queues exactly one consent request across retries (owner_consent_required); approval lets the retry through', async () => {
      for (let i = 0; i < 3; i++) {
        const res = await add(k.jit, 'c_jit', one('jit.person@example.org'));
        expect(res.status).toBe(422);
        expect(res.body.error.code).toBe('owner_consent_required');
      }
      const list = async () => (await system().clients.communities.listConsentRequests({ communityId: 'c_jit', pageSize: 0, pageToken: '', status: 0 }, operator())).requests;
      const pending = await list();
      expect(pending).toHaveLength(1);
      expect(pending[0]).toMatchObject({ communityId: 'c_jit', operation: 'members.add', status: ConsentStatus.CONSENT_STATUS_PENDING, requestedBy: 'k_jit' });
      expect(await count('c_jit')).toBe(0);

      // Another operation gets its own request.
      expect((await erase(k.jit, 'c_jit', 'p_claimed')).body.error.code).toBe('owner_consent_required');
      expect((await list()).map((r) => r.operation).sort()).toEqual(['members.add', 'members.remove']);

      const { request: approved } = await system().clients.communities.resolveConsentRequest({ consentRequestId: pending[0]!.id, approve: true, actor: 'u_jit' }, operator());
      expect(approved).toMatchObject({ status: ConsentStatus.CONSENT_STATUS_APPROVED, resolvedBy: 'u_jit' });
      const retry = await add(k.jit, 'c_jit', one('jit.person@example.org'));
      expect(retry.status).toBe(200);
      expect(retry.body.results[0].status).toBe('added');
      // The approval covers members.add only.
      expect((await erase(k.jit, 'c_jit', retry.body.results[0].profile_id)).body.error.code).toBe('owner_consent_required');
      // Repeating the decision is harmless; reversing it is a conflict.
      await system().clients.communities.resolveConsentRequest({ consentRequestId: pending[0]!.id, approve: true, actor: 'u_jit' }, operator());
      await expect(system().clients.communities.resolveConsentRequest({ consentRequestId: pending[0]!.id, approve: false, actor: 'u_jit' }, operator()))
        .rejects.toSatisfy((e) => readRemoteError(e)?.code === 'conflict');

      // A later attestation decision supersedes the approval: on, then off again.
      await system().clients.communities.setApiWrites({ communityId: 'c_jit', enabled: true, actor: 'u_jit' }, operator());
      expect((await add(k.jit, 'c_jit', one('jit.second@example.org'))).status).toBe(200);
      await system().clients.communities.setApiWrites({ communityId: 'c_jit', enabled: false, actor: 'u_jit' }, operator());
      expect((await add(k.jit, 'c_jit', one('jit.third@example.org'))).body.error.code).toBe('owner_consent_required');
    });

    it('an approval lets its write through once: of two concurrent retries exactly one passes, and the same add again queues a new request', async () => {
      const body = one('jit.once@example.org');
      expect((await add(k.jit, 'c_jit', body)).body.error.code).toBe('owner_consent_required');
      const mine = async () => (await system().clients.communities.listConsentRequests({ communityId: 'c_jit', pageSize: 200, pageToken: '', status: 0 }, operator()))
        .requests.filter((r) => r.description.includes('jit.once@example.org'));
      const [queued] = await mine();
      const { request: approved } = await system().clients.communities.resolveConsentRequest({ consentRequestId: queued!.id, approve: true, actor: 'u_jit' }, operator());
      expect(approved!.approvalExpiresAt).toBeDefined();
      expect(approved!.approvalUsedAt).toBeUndefined();

      const members = await count('c_jit');
      const retries = await Promise.all([add(k.jit, 'c_jit', body), add(k.jit, 'c_jit', body)]);
      expect(retries.map((r) => r.status).sort()).toEqual([200, 422]);
      expect(retries.find((r) => r.status === 422)!.body.error.code).toBe('owner_consent_required');
      expect(retries.find((r) => r.status === 200)!.body.results[0].status).toBe('added');
      expect(await count('c_jit')).toBe(members + 1);

      // Used: its write went through, and it lets nothing else through.
      const again = await add(k.jit, 'c_jit', body);
      expect(again.status).toBe(422);
      expect(again.body.error.code).toBe('owner_consent_required');
      const requests = await mine();
      expect(requests.map((r) => r.status)).toEqual([ConsentStatus.CONSENT_STATUS_APPROVED, ConsentStatus.CONSENT_STATUS_PENDING]);
      expect(requests[0]).toMatchObject({ id: queued!.id, approvalExpiresAt: undefined });
      expect(requests[0]!.approvalUsedAt).toBeDefined();
      expect(again.body.error.message).toContain(requests[1]!.id);
    });

    it('a denied request keeps the write refused (422), and the next retry queues one new request', async () => {
      const first = await add(k.orgjit, 'c_orgjit', one('orgjit.person@example.org'));
      expect(first.status).toBe(422);
      expect(first.body.error.code).toBe('owner_consent_required');
      const [pending] = (await system().clients.communities.listConsentRequests({ communityId: 'c_orgjit', pageSize: 0, pageToken: '', status: ConsentStatus.CONSENT_STATUS_PENDING }, operator())).requests;
      await system().clients.communities.resolveConsentRequest({ consentRequestId: pending!.id, approve: false, actor: 'u_orgjit' }, operator());
      for (let i = 0; i < 2; i++) {
        const res = await add(k.orgjit, 'c_orgjit', one('orgjit.person@example.org'));
        expect(res.status).toBe(422);
        expect(res.body.error.code).toBe('owner_consent_required');
      }
      const all = (await system().clients.communities.listConsentRequests({ communityId: 'c_orgjit', pageSize: 0, pageToken: '', status: 0 }, operator())).requests;
      expect(all.map((r) => r.status)).toEqual([ConsentStatus.CONSENT_STATUS_DENIED, ConsentStatus.CONSENT_STATUS_PENDING]);
      expect(await count('c_orgjit')).toBe(0);
    });

    it('pages the consent queue', async () => {
      // Its own requests, one per just-in-time community (a pending one is reused), so that it
      // stands alone: the queue has at least two to page through whatever ran before.
      for (const [key, community] of [[k.jit, 'c_jit'], [k.orgjit, 'c_orgjit']] as const) {
        const res = await add(key, community, one(`queue.${community}@example.org`));
        expect(res.body.error?.code).toBe('owner_consent_required');
      }
      const first = await system().clients.communities.listConsentRequests({ communityId: '', pageSize: 1, pageToken: '', status: 0 }, operator());
      expect(first.requests).toHaveLength(1);
      expect(first.nextPageToken).not.toBe('');
      const seen = [first.requests[0]!.id];
      let token = first.nextPageToken;
      while (token) {
        const page = await system().clients.communities.listConsentRequests({ communityId: '', pageSize: 1, pageToken: token, status: 0 }, operator());
        seen.push(...page.requests.map((r) => r.id));
        token = page.nextPageToken;
      }
      const all = await system().clients.communities.listConsentRequests({ communityId: '', pageSize: 200, pageToken: '', status: 0 }, operator());
      expect(all.requests.length).toBeGreaterThanOrEqual(2);
      expect(seen).toEqual(all.requests.map((r) => r.id));
      expect(new Set(seen).size).toBe(seen.length);
    });
  });
});
