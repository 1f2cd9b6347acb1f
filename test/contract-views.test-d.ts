// The views the edge builds are the shapes the REST contract publishes: each is the output type of
// its zod schema, not a second declaration. Checked by the compiler, not at run time: vitest's
// typecheck runs these (test/vitest.config.ts), so `npm test` fails when a view stops being its
// schema's shape.
import { expectTypeOf, test } from 'vitest';
import type { z } from 'zod';
import type { CommunityPage, RunPage } from '../gateway/core/contract/discovery.js';
import type { CommunityRunStarted, DryRunEstimate, EnrichmentRun, EnrichmentRunPoll } from '../gateway/core/contract/enrichment.js';
import type { MeResponse, OwnProfile } from '../gateway/core/contract/me.js';
import type { AddMembersResponse, CommunityMember, ErasureResult, RosterPage } from '../gateway/core/contract/members.js';
import type { SearchComplete, SearchPending, SearchPoll } from '../gateway/core/contract/search.js';
import type { CommunityPageView, RunPageView } from '../gateway/core/discovery.js';
import type { RunView } from '../gateway/core/enrichment-view.js';
import type { CommunityRunStartView, DryRunView, RunPollView } from '../gateway/core/enrichment.js';
import type { MeView } from '../gateway/core/me.js';
import type { MemberView, RosterPageView } from '../gateway/core/members-read.js';
import type { AddMembersView, ErasureView } from '../gateway/core/members-write.js';
import type { ProfileView } from '../gateway/core/profile.js';
import type { SearchCompleteView, SearchPendingView, SearchPollView } from '../gateway/core/search.js';

test('the search views are the shapes the contract publishes', () => {
  expectTypeOf<SearchCompleteView>().toEqualTypeOf<z.output<typeof SearchComplete>>();
  expectTypeOf<SearchPendingView>().toEqualTypeOf<z.output<typeof SearchPending>>();
  expectTypeOf<SearchPollView>().toEqualTypeOf<z.output<typeof SearchPoll>>();
});

test('the roster and member write views are the shapes the contract publishes', () => {
  expectTypeOf<RosterPageView>().toEqualTypeOf<z.output<typeof RosterPage>>();
  expectTypeOf<MemberView>().toEqualTypeOf<z.output<typeof CommunityMember>>();
  expectTypeOf<AddMembersView>().toEqualTypeOf<z.output<typeof AddMembersResponse>>();
  expectTypeOf<ErasureView>().toEqualTypeOf<z.output<typeof ErasureResult>>();
});

test('the caller and profile views are the shapes the contract publishes', () => {
  expectTypeOf<MeView>().toEqualTypeOf<MeResponse>();
  expectTypeOf<ProfileView>().toEqualTypeOf<OwnProfile>();
});

test('the enrichment and discovery views are the shapes the contract publishes', () => {
  expectTypeOf<RunView>().toEqualTypeOf<z.output<typeof EnrichmentRun>>();
  expectTypeOf<RunPollView>().toEqualTypeOf<z.output<typeof EnrichmentRunPoll>>();
  expectTypeOf<CommunityRunStartView>().toEqualTypeOf<z.output<typeof CommunityRunStarted>>();
  expectTypeOf<DryRunView>().toEqualTypeOf<z.output<typeof DryRunEstimate>>();
  expectTypeOf<CommunityPageView>().toEqualTypeOf<z.output<typeof CommunityPage>>();
  expectTypeOf<RunPageView>().toEqualTypeOf<z.output<typeof RunPage>>();
});
