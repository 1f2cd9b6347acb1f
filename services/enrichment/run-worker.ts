// The enrichment run worker (docs/ENRICHMENT.md "Runs"): runs are a leased queue (kit/jobs), so
// the claim, its lease and heartbeats, takeover of runs whose worker died, the end of runs out of
// attempts and the hand-back of leases by a stopping process are the kit's. Here: enrich the run's
// pending people a batch at a time. The people ready together, each item's `succeeded` with its
// data, are written in one statement fenced by the claim; their charges (one posting, by a reference
// unique to the run and person) and their search indexing follow and are recorded on the items, so
// a crash at any point resumes without re-doing a finished person or charging twice. Each tick also
// settles charges or indexing that did not go through.
import pLimit from 'p-limit';
import { readRemoteError } from '../kit/grpc/errors.js';
import type { Database } from '../kit/db/database.js';
import { createGroupWriter } from '../kit/jobs/group-writer.js';
import { createLeasedWorker, type Lease } from '../kit/jobs/leased-worker.js';
import type { Logger } from '../kit/logger.js';
import { metrics } from '../kit/metrics.js';
import type { CommunityPeer, EnrichmentPipeline, PersonInput } from './pipeline/index.js';
import type { RunEffects } from './run-effects.js';
import { createRunQueue, createRunsRepository, type EnrichedMember, type ItemRow, type RunRow } from './runs.repository.js';

/** What settling an item needs to know of it. */
type SettlingItem = Pick<ItemRow, 'profile_id' | 'search_text' | 'charged' | 'indexed'>;

export interface RunWorkerOptions {
  db: Database;
  pipeline: EnrichmentPipeline;
  effects: RunEffects;
  logger: Logger;
  /** People of one run enriched at once. */
  concurrency: number;
  leaseMs?: number;
  maxAttempts?: number;
  tickMs?: number;
  /** Runs worked at once by this process's background tick. */
  runsAtOnce?: number;
  /** Sends the events of ended runs to the event log (run-events.ts): after each end, and each tick. */
  events?: { relay(): Promise<void> };
}

export const DEFAULT_LEASE_MS = 30_000;
export const DEFAULT_MAX_ATTEMPTS = 5;
/** Self-enrichment runs at this tier (the person's own data and their public records). */
export const SELF_DEPTH = 'standard';
const BATCH = 100;

/** The claim was taken over by another worker: stop touching the run. */
class ClaimLost extends Error {}

export function createRunWorker(options: RunWorkerOptions) {
  const repo = createRunsRepository(options.db);
  const queue = createRunQueue(options.db, {
    leaseMs: options.leaseMs ?? DEFAULT_LEASE_MS,
    maxAttempts: options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS,
  });
  const log = options.logger.child({ component: 'enrichment-worker' });

  /**
   * Charges succeeded people of a run in one posting on the payer's wallet (by a reference per
   * person: billing posts each once); the credits of each, in order. A self run was metered when it
   * started (its item carries that charge already): null.
   */
  async function charge(run: RunRow, profileIds: string[]): Promise<Array<number | null>> {
    if (run.kind !== 'community' || profileIds.length === 0) return profileIds.map(() => null);
    const credits = await options.effects.chargeMany(run, profileIds);
    const charged = credits.filter((c) => c > 0).length;
    if (charged > 0) metrics.enrichmentProfiles.inc({ depth: run.depth, outcome: 'charged' }, charged);
    return credits;
  }

  /** Indexes succeeded people of a run for search. */
  async function index(run: RunRow, items: readonly SettlingItem[]): Promise<void> {
    // Self runs are indexed when their profile is written (applyOwn), before the item succeeds.
    if (run.kind === 'community' && items.length > 0) {
      await options.effects.indexCommunity(run.community_id!, items.map((i) => ({ profileId: i.profile_id, searchText: i.search_text ?? '' })));
    }
  }

  /**
   * Charges and indexes these succeeded people where not done yet, billing and search at once
   * (idempotent), then records on the items whatever of the two went through, in one statement,
   * before a failure of either is thrown.
   */
  async function settleItems(run: RunRow, items: readonly SettlingItem[]): Promise<void> {
    const toCharge = items.filter((i) => !i.charged).map((i) => i.profile_id);
    const toIndex = items.filter((i) => !i.indexed);
    const [charged, indexed] = await Promise.allSettled([charge(run, toCharge), index(run, toIndex)]);
    const credits = new Map(charged.status === 'fulfilled' ? toCharge.map((id, i) => [id, charged.value[i] ?? null]) : []);
    const wasIndexed = new Set(indexed.status === 'fulfilled' ? toIndex.map((i) => i.profile_id) : []);
    const settled = items
      .filter((i) => credits.has(i.profile_id) || wasIndexed.has(i.profile_id))
      .map((i) => ({
        profileId: i.profile_id,
        charged: credits.has(i.profile_id),
        credits: credits.get(i.profile_id) ?? null,
        indexed: wasIndexed.has(i.profile_id),
      }));
    await repo.markSettled(run.id, settled);
    if (charged.status === 'rejected') throw charged.reason;
    if (indexed.status === 'rejected') throw indexed.reason;
  }

  /** Charges and indexes the succeeded people of a run not yet settled (idempotent; any process). */
  async function settle(run: RunRow): Promise<void> {
    for (;;) {
      const items = await repo.unsettled(run.id, BATCH);
      if (items.length === 0) return;
      await settleItems(run, items);
    }
  }

  /** An item write found its item no longer pending: fine when the claim holds (erased), else stop. */
  async function itemGone(run: RunRow, attempt: number): Promise<void> {
    if (!(await queue.holds(run.id, attempt))) throw new ClaimLost();
  }

  /** Enriches one member; a person who cannot be (gone, or the pipeline failed) is settled here and gives nothing. */
  async function enrichCommunityPerson(run: RunRow, attempt: number, person: PersonInput | undefined, profileId: string, peers: CommunityPeer[]): Promise<EnrichedMember | undefined> {
    if (!person) {
      if (await repo.settleItem(run.id, attempt, profileId, 'skipped', 'no longer a member of this community')) {
        metrics.enrichmentProfiles.inc({ depth: run.depth, outcome: 'skipped' });
      } else await itemGone(run, attempt);
      return undefined;
    }
    try {
      const result = await options.pipeline.enrich(person, run.depth, { peers });
      return { profileId, searchText: result.searchText, data: result.data };
    } catch (err) {
      log.error({ err, runId: run.id, profileId }, 'enrichment of a person failed');
      if (await repo.settleItem(run.id, attempt, profileId, 'failed', 'enrichment failed unexpectedly; start a new run to retry')) {
        metrics.enrichmentProfiles.inc({ depth: run.depth, outcome: 'failed' });
      } else await itemGone(run, attempt);
      return undefined;
    }
  }

  /**
   * Writes enriched people, each item with its data, in one statement per group (a statement per
   * person made a fast run wait on a round trip each); returns those written, to be settled.
   */
  async function writeEnriched(run: RunRow, attempt: number, people: EnrichedMember[]): Promise<SettlingItem[]> {
    const target = { id: run.id, communityId: run.community_id!, depth: run.depth };
    const written = new Set(await repo.succeedMemberItems(target, attempt, people));
    if (written.size > 0) metrics.enrichmentProfiles.inc({ depth: run.depth, outcome: 'succeeded' }, written.size);
    if (written.size < people.length) await itemGone(run, attempt);
    return people.filter((p) => written.has(p.profileId)).map((p) => ({ profile_id: p.profileId, search_text: p.searchText, charged: false, indexed: false }));
  }

  /**
   * Enriches a run's pending people a batch at a time, in profile order. Each person is written as
   * soon as the write before is done (group-writer.ts: one statement for all who are ready), then
   * settled the same way (one posting on the payer's wallet, one indexing call per group), while
   * enrichment goes on. The next batch starts once the one before it is written and settled, so at
   * most two batches are in flight: a crash re-does at most those, and never charges twice.
   */
  async function workCommunityRun(run: RunRow, lease: Lease): Promise<void> {
    const attempt = lease.token;
    // A lost claim or a stopping process pauses the run at the next person.
    const paused = () => lease.lost || lease.stopping;
    const communityId = run.community_id!;
    const peers = run.depth === 'deep' ? await options.effects.peers(communityId) : [];
    const limit = pLimit(options.concurrency);
    // Two groups settle at once: on a 4,000-person quick-tier run (PostgreSQL) 1,860–1,890
    // people/s against 1,520–1,580 with one; three no faster (`npm run bench`).
    const settler = createGroupWriter<SettlingItem>((items) => settleItems(run, items), 2);
    const writer = createGroupWriter<EnrichedMember>(async (people) => {
      for (const item of await writeEnriched(run, attempt, people)) settler.add(item);
    });
    const flushed = () => writer.flush().then(() => settler.flush());
    let previous: Promise<void> = Promise.resolve();
    let after = '';
    try {
      for (;;) {
        if (paused()) throw new ClaimLost();
        const pending = await repo.pendingItems(run.id, BATCH, after);
        if (pending.length === 0) break;
        after = pending[pending.length - 1]!;
        const people = await options.effects.members(communityId, pending);
        const outcomes = await Promise.allSettled(pending.map((id) => limit(async () => {
          if (paused()) throw new ClaimLost();
          const enriched = await enrichCommunityPerson(run, attempt, people.get(id), id, peers);
          if (enriched) writer.add(enriched);
        })));
        const refused = outcomes.find((o): o is PromiseRejectedResult => o.status === 'rejected');
        if (refused) throw refused.reason;
        await previous;
        previous = flushed();
        // Awaited at the next batch or below; until then its failure must not count as unhandled.
        previous.catch(() => {});
      }
      await flushed();
    } finally {
      // Those enriched are written (while the claim holds) before the run is left, and nothing is
      // left running: a lost claim, a stop, a failure.
      await flushed().catch(() => {});
    }
  }

  async function workSelfRun(run: RunRow, attempt: number): Promise<void> {
    if (!run.metered) {
      // Metered at start; this catches a start that crashed between storing the run and metering it.
      try {
        await repo.markMetered(run.id, await options.effects.meterSelf(run));
      } catch (err) {
        const remote = readRemoteError(err);
        if (!remote?.code) throw err;
        if (!(await repo.settleItem(run.id, attempt, run.profile_id!, 'failed', remote.message))) throw new ClaimLost();
        return;
      }
    }
    const [profileId] = await repo.pendingItems(run.id, 1);
    if (!profileId) return;
    const person = await options.effects.profile(profileId);
    if (!person) {
      if (!(await repo.settleItem(run.id, attempt, profileId, 'failed', 'the profile no longer exists'))) throw new ClaimLost();
      return;
    }
    const result = await options.pipeline.enrich(person, SELF_DEPTH);
    // The profile and its public document first (idempotent); then data and item together.
    await options.effects.applyOwn(profileId, result.normalized, result.searchText);
    await options.db.transaction(async (tx) => {
      const txRepo = createRunsRepository(tx);
      if (!(await txRepo.succeedItem(run.id, attempt, profileId, result.searchText))) throw new ClaimLost();
      await txRepo.upsertSelfEnrichment(run.user_id!, profileId, SELF_DEPTH, result.data);
      await txRepo.markIndexed(run.id, [profileId]);
    });
    metrics.enrichmentProfiles.inc({ depth: SELF_DEPTH, outcome: 'succeeded' });
  }

  /** Works a claimed run to its end, or until its claim is lost or the process stops. */
  async function work(run: RunRow, lease: Lease): Promise<void> {
    const attempt = lease.token;
    try {
      if (run.kind === 'community') await workCommunityRun(run, lease);
      else await workSelfRun(run, attempt);
      await settle(run);
      const counts = await repo.counts(run.id);
      const allFailed = counts.succeeded === 0 && counts.failed > 0;
      const finished = await queue.finish(run.id, attempt, allFailed ? { status: 'failed', error: 'no person could be enriched' } : { status: 'succeeded', error: null });
      if (finished) {
        void options.events?.relay();
        metrics.enrichmentRunsFinished.inc({ kind: run.kind, outcome: finished.status });
        log.info({ runId: run.id, kind: run.kind, status: finished.status, ...counts }, 'enrichment run finished');
      }
    } catch (err) {
      // Left running: the lease runs out and another claim (here or elsewhere) resumes the run; a
      // stopping process hands its lease back (the kit's worker), so another replica resumes it at once.
      if (err instanceof ClaimLost) log.warn({ runId: run.id, attempt, stopping: lease.stopping }, 'enrichment run paused: claim lost or stopping');
      else log.error({ err, runId: run.id, attempt }, 'enrichment run interrupted; it resumes after its lease');
    }
  }

  const worker = createLeasedWorker<RunRow, void>({
    queue,
    logger: log,
    capacity: options.runsAtOnce ?? 2,
    tickMs: options.tickMs,
    work,
    onAbandoned: (ids) => repo.failOpenItems(ids),
    async upkeep() {
      for (const run of await repo.finishedUnsettled(5)) await settle(run);
      await options.events?.relay();
    },
  });

  return {
    /** Claims this run (or the oldest claimable one) and works it; false when nothing was claimed. */
    async claimAndWork(id?: string): Promise<boolean> {
      return (await worker.claimAndRun(id)) !== undefined;
    },
    tick: worker.tick,
    start: worker.start,
    /** Stops claiming and pauses running runs at the next person, handing their leases back. */
    stop: worker.stop,
    countOpen: () => queue.countOpen(),
  };
}

export type RunWorker = ReturnType<typeof createRunWorker>;
