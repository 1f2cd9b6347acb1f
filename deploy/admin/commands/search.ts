// `search reindex`: rebuilds the search corpus from the communities store (every membership and
// public claimed profile, re-embedding documents another embedder wrote, removing anyone else's).
// Progress: a bar on a terminal; with --progress-every MS, a line per MS on stderr for logs.
import type { Command } from 'commander';
import type { GetReindexRunResponse } from '../../../proto/gen/expertnet/search/v1/search_service.js';
import { positive } from '../args.js';
import type { AdminContext } from '../context.js';
import { print, withJson } from '../output.js';
import { progressBar } from '../progress.js';
import { progressLine, watchReindex } from '../reindex-progress.js';

interface ReindexOptions { batch?: number; progressEvery?: number; progress: boolean; json?: boolean }

export function registerSearch(program: Command, ctx: AdminContext): void {
  const search = program.command('search').description('the search corpus');

  withJson(search.command('reindex'))
    .description('re-index every membership and public claimed profile; remove every other document; prints the counts')
    .option('--batch <n>', 'profiles read per batch (default 500, at most 5000)', positive)
    .option('--progress-every <ms>', 'also print a progress line on stderr every MS ms (for logs)', positive)
    .option('--no-progress', 'no progress bar on a terminal')
    .action(async (options: ReindexOptions) => {
      const clients = ctx.clients();
      const poll = async () => clients.search.getReindexRun({ run: 0 }, await ctx.call(10_000));
      const before = (await poll()).run;
      const bar = progressBar('search reindex', options.progress && options.progressEvery === undefined);
      const show = (r: GetReindexRunResponse) => {
        if (options.progressEvery !== undefined) process.stderr.write(`${progressLine(r)}\n`);
        else bar.update(r.indexedDocuments, r.expectedDocuments, 'documents');
      };
      const watch = watchReindex(poll, before, show, options.progressEvery ?? 500);
      // A large corpus takes a while: this call gets its own, longer deadline.
      const r = await clients.communities.reindexSearch({ batchSize: options.batch ?? 0 }, await ctx.call(30 * 60_000))
        .finally(async () => {
          await watch.stop();
          bar.stop();
        });
      print({ profiles: r.profiles, membership_documents: r.membershipDocuments, public_documents: r.publicDocuments, batches: r.batches, removed: r.removed }, options);
    });
}
