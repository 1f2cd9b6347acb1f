// The search views the edge builds are the shapes the REST contract publishes (checked by the types).
import { expectTypeOf, it } from 'vitest';
import type { z } from 'zod';
import { SearchComplete, SearchPending, SearchPoll } from '../gateway/core/contract/search.js';
import type { SearchCompleteView, SearchPendingView, SearchPollView } from '../gateway/core/search.js';

it('the core views are the shapes the contract publishes', () => {
  expectTypeOf<SearchCompleteView>().toExtend<z.output<typeof SearchComplete>>();
  expectTypeOf<SearchPendingView>().toExtend<z.output<typeof SearchPending>>();
  expectTypeOf<SearchPollView>().toExtend<z.output<typeof SearchPoll>>();
});
