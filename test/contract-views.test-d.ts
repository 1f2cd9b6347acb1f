// The views the edge builds are the shapes the REST contract publishes. Checked by the compiler, not
// at run time: vitest's typecheck runs these (test/vitest.config.ts), so `npm test` fails when a
// view drifts from its schema.
import { expectTypeOf, test } from 'vitest';
import type { z } from 'zod';
import type { MeResponse, OwnProfile } from '../gateway/core/contract/me.js';
import type { CommunityMember, RosterPage } from '../gateway/core/contract/members.js';
import type { SearchComplete, SearchPending, SearchPoll } from '../gateway/core/contract/search.js';
import type { MeView } from '../gateway/core/me.js';
import type { MemberView, RosterPageView } from '../gateway/core/members-read.js';
import type { ProfileView } from '../gateway/core/profile.js';
import type { SearchCompleteView, SearchPendingView, SearchPollView } from '../gateway/core/search.js';

test('the search views are the shapes the contract publishes', () => {
  expectTypeOf<SearchCompleteView>().toExtend<z.output<typeof SearchComplete>>();
  expectTypeOf<SearchPendingView>().toExtend<z.output<typeof SearchPending>>();
  expectTypeOf<SearchPollView>().toExtend<z.output<typeof SearchPoll>>();
});

test('the roster views are the shapes the contract publishes', () => {
  expectTypeOf<RosterPageView>().toExtend<z.output<typeof RosterPage>>();
  expectTypeOf<MemberView>().toExtend<z.output<typeof CommunityMember>>();
});

test('the caller and profile views are the shapes the contract publishes', () => {
  expectTypeOf<MeView>().toExtend<MeResponse>();
  expectTypeOf<ProfileView>().toExtend<OwnProfile>();
});
