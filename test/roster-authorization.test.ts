// Who may read a roster and a member, over real HTTP: the authorization matrix of both endpoints,
// and the communities service refusing the same callers over gRPC.
import { Status } from 'nice-grpc';
import { describe, expect, it } from 'vitest';
import { OwnerType } from '../proto/gen/expertnet/common/v1/common.js';
import { callAs } from '../services/kit/grpc/client.js';
import { readRemoteError } from '../services/kit/grpc/errors.js';
import { k, rosterSystem } from './helpers/roster-system.js';
import { storeNames } from './helpers/stores.js';

describe.each(storeNames())('roster reads on %s', (store) => {
  const { system, operator, roster, member } = rosterSystem(store);

  describe('authorization matrix (both endpoints)', () => {
    const both = (secret: string, community: string, profile: string) => Promise.all([roster(secret, community, '?limit=1'), member(secret, community, profile)]);

    async function expectBoth(secret: string, community: string, profile: string, status: number, code?: string) {
      for (const res of await both(secret, community, profile)) {
        expect(res.status, `${community}: ${JSON.stringify(res.body)}`).toBe(status);
        if (code) expect(res.body.error.code).toBe(code);
      }
    }

    it('an organization manager who is not a member reads its organization’s community', async () => {
      await expectBoth(k.manager, 'c_bio', 'p_member', 200);
    });

    it('a plain member and a community admin read it', async () => {
      await expectBoth(k.member, 'c_bio', 'p_admin', 200);
      await expectBoth(k.admin, 'c_bio', 'p_member', 200);
    });

    it('a community outside reach is 403: an outsider, and a key whose allowlist leaves it out', async () => {
      await expectBoth(k.outsider, 'c_bio', 'p_member', 403, 'forbidden');
      await expectBoth(k.allowOut, 'c_bio', 'p_member', 403, 'forbidden');
      await expectBoth(k.allowOut, 'c_chem', 'p_member', 200);
    });

    it('an archived community is 403; the membership survives and unarchiving restores access', async () => {
      await expectBoth(k.member, 'c_arch', 'p_member', 200);
      const options = await operator();
      await system().clients.communities.archiveCommunity({ communityId: 'c_arch', archived: true }, options);
      try {
        await expectBoth(k.member, 'c_arch', 'p_member', 403, 'forbidden');
        await expectBoth(k.manager, 'c_arch', 'p_member', 403, 'forbidden');
      } finally {
        await system().clients.communities.archiveCommunity({ communityId: 'c_arch', archived: false }, options);
      }
      await expectBoth(k.member, 'c_arch', 'p_member', 200);
    });

    it('a community its user owns directly, with no members: an empty roster page and a member read 404 to the owner, 403 to others', async () => {
      await system().clients.communities.upsertCommunity(
        { community: { id: 'c_own', name: 'Owned', billingOwner: { type: OwnerType.OWNER_TYPE_USER, id: 'u_outsider' }, archived: false, apiWrites: false, createdAt: undefined } },
        await operator(),
      );
      const page = await roster(k.outsider, 'c_own');
      expect(page.status, JSON.stringify(page.body)).toBe(200);
      expect(page.body).toEqual({ members: [], next_cursor: null });
      const read = await member(k.outsider, 'c_own', 'p_member');
      expect(read.status).toBe(404);
      expect(read.body.error.code).toBe('not_found');
      await expectBoth(k.member, 'c_own', 'p_member', 403, 'forbidden');
      await expectBoth(k.legacy, 'c_own', 'p_member', 403, 'forbidden');
    });

    it('reads of many callers at once each get their own answer: rows in reach, 403 outside it', async () => {
      // Sent together, so the service reads them together (one statement per kind of read): a
      // caller's reach must decide its own ask only.
      const asks = [
        { secret: k.manager, community: 'c_bio', profile: 'p_member', status: 200 },
        { secret: k.outsider, community: 'c_bio', profile: 'p_member', status: 403 },
        { secret: k.legacy, community: 'c_bio', profile: 'p_admin', status: 200 },
        { secret: k.legacy, community: 'c_chem', profile: 'p_chem1', status: 403 },
        { secret: k.allowOut, community: 'c_chem', profile: 'p_chem1', status: 200 },
        { secret: k.allowOut, community: 'c_bio', profile: 'p_member', status: 403 },
        { secret: k.member, community: 'c_nowhere', profile: 'p_member', status: 403 },
      ];
      const rounds = 3;
      const sent = Array.from({ length: rounds }, () => asks).flat();
      const answers = await Promise.all(sent.map((a) => both(a.secret, a.community, a.profile)));
      answers.forEach(([page, read], i) => {
        const ask = sent[i]!;
        expect([page!.status, read!.status], `${ask.community} ${ask.profile}`).toEqual([ask.status, ask.status]);
        if (ask.status !== 200) return;
        expect(read!.body.profile_id).toBe(ask.profile);
        expect(page!.body.members).toHaveLength(1);
      });
    });

    it('a legacy organization key reads its organization’s community only', async () => {
      await expectBoth(k.legacy, 'c_bio', 'p_member', 200);
      await expectBoth(k.legacy, 'c_chem', 'p_chem1', 403, 'forbidden');
    });

    it('an unknown community is 403, never 404', async () => {
      await expectBoth(k.member, 'c_nowhere', 'p_member', 403, 'forbidden');
    });

    it('a key without profile:read is 403 naming the scope', async () => {
      for (const res of await both(k.noScope, 'c_bio', 'p_member')) {
        expect(res.status).toBe(403);
        expect(res.body.error).toMatchObject({ code: 'forbidden', required_scope: 'profile:read' });
        expect(res.body.error.message).toContain('profile:read');
      }
    });

    it('a revoked key is 401 on the next request', async () => {
      await expectBoth(k.revoked, 'c_bio', 'p_member', 200);
      await system().clients.identity.revokeKey({ keyId: 'k_revoked' }, await operator());
      await expectBoth(k.revoked, 'c_bio', 'p_member', 401, 'unauthorized');
    });
  });

  describe('the service re-checks what the edge checked', () => {
    it('refuses a caller outside reach (forbidden), a cursor of another community (invalid_request) and an operator, over gRPC too', async () => {
      const edge = await callAs(system().signer, { kind: 'edge' }, 'r', 5000);
      const as = async (apiKey: string) => {
        const { caller } = await system().clients.identity.authenticate({ apiKey, accessToken: '' }, edge);
        return callAs(system().signer, { kind: 'caller', caller: caller! }, 'r', 5000);
      };
      const refusal = (call: Promise<unknown>) => call.then(() => undefined, (error: unknown) => readRemoteError(error));
      const outsider = await as(k.outsider);
      // One call at a time: a refusal that lands while another is awaited would go unhandled.
      for (const call of [
        () => system().clients.communities.listMembers({ communityId: 'c_bio', pageSize: 1, pageToken: '' }, outsider),
        () => system().clients.communities.getMember({ communityId: 'c_bio', profileId: 'p_member' }, outsider),
        // Asking for the member's enrichment too changes nothing: reach is checked first.
        () => system().clients.communities.getMember({ communityId: 'c_bio', profileId: 'p_member', withEnrichment: true }, outsider),
      ]) {
        expect(await refusal(call())).toMatchObject({ status: Status.PERMISSION_DENIED, code: 'forbidden', message: expect.stringMatching(/read reach/) });
      }
      // A genuine cursor of c_chem (this caller reads both) is not a cursor of c_bio.
      const member = await as(k.member);
      const chem = await system().clients.communities.listMembers({ communityId: 'c_chem', pageSize: 1, pageToken: '' }, member);
      expect(chem.nextPageToken).not.toBe('');
      expect(await refusal(system().clients.communities.listMembers({ communityId: 'c_bio', pageSize: 2, pageToken: chem.nextPageToken }, member)))
        .toMatchObject({ status: Status.INVALID_ARGUMENT, code: 'invalid_request' });
      // Reach before the cursor: the same cursor from a caller outside c_bio's reach is forbidden.
      expect(await refusal(system().clients.communities.listMembers({ communityId: 'c_bio', pageSize: 2, pageToken: chem.nextPageToken }, outsider)))
        .toMatchObject({ status: Status.PERMISSION_DENIED, code: 'forbidden' });
      // An operator is not an end user: the roster methods act for callers only.
      expect(await refusal(system().clients.communities.listMembers({ communityId: 'c_bio', pageSize: 1, pageToken: '' }, await operator())))
        .toMatchObject({ status: Status.PERMISSION_DENIED });
    });
  });
});
