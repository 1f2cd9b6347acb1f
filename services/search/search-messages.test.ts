// A match on the wire (search-messages.ts): a person's absent values are unset optional fields, so
// null survives from the ranking to the API; the fields keep their numbers, so a peer built before
// they were optional reads the same message; rows stored before matches were messages still read.
import { BinaryWriter } from '@bufbuild/protobuf/wire';
import { describe, expect, it } from 'vitest';
import { Match } from '../../proto/gen/expertnet/search/v1/search_service.js';
import type { RankedMatch } from './pipeline/pipeline.js';
import type { JobRow } from './search-jobs.repository.js';
import { toJob, toMatch } from './search-messages.js';

const ranked = (over: Partial<RankedMatch> = {}): RankedMatch => ({
  profileId: 'p_1', userId: null, name: 'Ada', headline: 'Ecologist', organization: null, location: '', avatarUrl: null,
  score: 0.5, semanticScore: 0.4, weakMatch: false, explanation: 'Good match.', matchedCommunityIds: ['c_1'], ...over,
});

function completeJob(matches: unknown[]): JobRow {
  const at = new Date('2026-11-28T12:00:00Z');
  return {
    id: 'srch_1', credential_id: 'k_1', caller: {}, query: 'q', scope: 'all', named_community_id: null, community_ids: [], include_public: true,
    reach_ids: [], result_limit: 20, payer_type: null, payer_id: null, status: 'complete', matches: matches as JobRow['matches'], error: null,
    attempts: 1, lease_until: null, charged_at: at, created_at: at, finished_at: at, expires_at: at, request_id: null,
  };
}

describe('a search match as a message', () => {
  it('leaves absent values unset, never empty, and keeps them unset across the wire', () => {
    const match = toMatch(ranked(), ['c_1']);
    expect(match).toMatchObject({ profileId: 'p_1', headline: 'Ecologist', sharedCommunities: ['c_1'] });
    for (const field of ['userId', 'organization', 'location', 'avatarUrl'] as const) expect(match[field]).toBeUndefined();
    const decoded = Match.decode(Match.encode(match).finish());
    expect(decoded).toEqual({ ...match, userId: undefined, organization: undefined, location: undefined, avatarUrl: undefined });
  });

  it('is read by field number as before: a peer without optional fields writes and reads the same bytes', () => {
    // What a peer built before the fields were optional writes for an unclaimed person: no user_id at all.
    const old = new BinaryWriter().uint32(10).string('p_1').uint32(26).string('Ada').uint32(34).string('Ecologist').finish();
    expect(Match.decode(old)).toMatchObject({ profileId: 'p_1', userId: undefined, name: 'Ada', headline: 'Ecologist' });
    // And what this side writes is the same bytes such a peer would have written.
    const ours = toMatch(ranked({ location: null, explanation: '', score: 0, semanticScore: 0 }), []);
    expect(Buffer.from(Match.encode(ours).finish())).toEqual(Buffer.from(old));
  });

  it('reads a job stored before matches were messages (null for absent values, no weak flag)', () => {
    const stored = { profileId: 'p_1', userId: null, name: 'Ada', headline: null, organization: 'Lab', location: null, avatarUrl: null,
      score: 0.5, semanticScore: 0.4, explanation: null, sharedCommunities: [] };
    const [match] = toJob(completeJob([stored])).matches;
    expect(match).toEqual({ profileId: 'p_1', userId: undefined, name: 'Ada', headline: undefined, organization: 'Lab', location: undefined,
      avatarUrl: undefined, score: 0.5, semanticScore: 0.4, explanation: undefined, sharedCommunities: [], weakMatch: false });
  });

  it('answers a stored match as it was stored', () => {
    const match = toMatch(ranked({ userId: 'u_1', weakMatch: true }), ['c_1']);
    const stored: unknown = JSON.parse(JSON.stringify([match]));
    expect(toJob(completeJob(stored as unknown[])).matches).toEqual([Match.fromPartial(match)]);
  });
});
