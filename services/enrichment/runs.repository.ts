// SQL for enrichment runs, their items and the enrichment data they write. Nothing else: the
// rules live in the domain modules and the worker.
//
// Runs are a leased queue (kit/jobs/leased-queue.ts): a claim bumps `attempts`, the fencing token
// of that claim, and its heartbeats, item results and the run's end are written only while that
// token still holds the run (`leaseHeld`).
import type { Queryable } from '../kit/db/database.js';
import { createLeasedQueue, leaseHeld, type LeasedTable, type LeasePolicy } from '../kit/jobs/leased-queue.js';
import type { Depth } from './pipeline/index.js';
import type { RunRow, ItemRow, RunCounts, EnrichmentDataRow, NewRun, NewItem } from './run-rows.js';

export type { RunKind, RunStatus, ItemStatus, RunRow, ItemRow, RunCounts, EnrichmentDataRow, NewRun, NewItem } from './run-rows.js';

export const DEPTH_ORDER: readonly Depth[] = ['quick', 'standard', 'deep'];

/** Depths at least as deep as this one (a person enriched at one of them is "already enriched"). */
export function depthsFrom(depth: Depth): Depth[] {
  return DEPTH_ORDER.slice(DEPTH_ORDER.indexOf(depth));
}

/** Enrichment runs as a leased queue: queued until claimed; a claim records when work first began. */
export const ENRICHMENT_RUNS: LeasedTable = {
  table: 'enrichment.runs',
  waiting: 'queued',
  abandoned: { status: 'failed', error: 'the enrichment worker stopped too many times' },
  onClaim: 'started_at = coalesce(started_at, now())',
  // Its event, in the statement that ends it (docs/WEBHOOKS.md).
  events: {
    outbox: 'enrichment.event_outbox',
    type: `CASE WHEN status IN ('succeeded', 'failed') THEN (CASE kind WHEN 'self' THEN 'self_enrichment_run.' ELSE 'enrichment_run.' END) || status END`,
  },
};

export function createRunQueue(db: Queryable, policy: LeasePolicy) {
  return createLeasedQueue<RunRow>(db, ENRICHMENT_RUNS, policy);
}

/** SQL true while claim $2 still holds run $1. */
const HELD = leaseHeld(ENRICHMENT_RUNS, '$1', '$2');

/**
 * The CTEs `ended` and `released`: the pending items of run $1 whose profiles ($3, text[]) are
 * marked succeeded with their search texts ($4, text[], in the same order) while the claim ($2)
 * holds, and their reservations ended in the same statement (so in the same transaction as the
 * data: a run that claims a person after it sees them enriched).
 */
const SUCCEED_PENDING_ITEMS = `done AS (SELECT * FROM unnest($3::text[], $4::text[]) AS t(profile_id, search_text)),
         ended AS (
           UPDATE enrichment.run_items i SET status = 'succeeded', search_text = done.search_text, finished_at = now()
             FROM done
            WHERE i.run_id = $1 AND i.profile_id = done.profile_id AND i.status = 'pending'
              AND ${HELD}
          RETURNING i.run_id, i.profile_id),
         released AS (DELETE FROM enrichment.reservations r USING ended WHERE r.run_id = ended.run_id AND r.profile_id = ended.profile_id)`;

/** A person's enrichment, ready to be written with its item. */
export interface EnrichedMember {
  profileId: string;
  searchText: string;
  data: unknown;
}

export function createRunsRepository(db: Queryable) {
  const repository = {
    /** Inserts a run and its items (call inside a transaction). */
    async insert(run: NewRun, items: NewItem[]): Promise<RunRow> {
      const row = await repository.insertRun(run);
      await repository.insertItems(run.id, items);
      return row;
    },

    /** Inserts a run without items (call inside a transaction, then insertItems). */
    async insertRun(run: NewRun): Promise<RunRow> {
      const rows = await db.query<RunRow>(
        `INSERT INTO enrichment.runs (id, kind, community_id, user_id, profile_id, credential_id, caller, depth, payer_type, payer_id)
         VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb, $8, $9, $10) RETURNING *`,
        [run.id, run.kind, run.communityId ?? null, run.userId ?? null, run.profileId ?? null, run.credentialId,
          JSON.stringify(run.caller), run.depth, run.payer?.type ?? null, run.payer?.id ?? null],
      );
      return rows[0]!;
    },

    /** Inserts a run's items: pending, or skipped from the start with their reason. */
    async insertItems(runId: string, items: NewItem[]): Promise<void> {
      // One statement per 1000 people: a 10k-member run is inserted in ten round trips.
      for (let i = 0; i < items.length; i += 1000) {
        const chunk = items.slice(i, i + 1000);
        await db.query(
          `INSERT INTO enrichment.run_items (run_id, profile_id, status, reason, finished_at)
           SELECT $1, p, CASE WHEN r IS NULL THEN 'pending' ELSE 'skipped' END, r, CASE WHEN r IS NULL THEN NULL ELSE now() END
             FROM unnest($2::text[], $3::text[]) AS t(p, r)`,
          [runId, chunk.map((it) => it.profileId), chunk.map((it) => it.skippedBecause ?? null)],
        );
      }
    },

    /**
     * Reserves these people of the community at this tier for the run (call inside the transaction
     * creating the run, after insertRun); returns those reserved. A person another run holds at
     * this tier is not: the insert waits for that run's uncommitted claim or release, then counts
     * the committed state. Ids in sorted order, so two runs claiming overlapping sets never deadlock.
     */
    async reserve(runId: string, communityId: string, depth: Depth, profileIds: string[]): Promise<Set<string>> {
      const claimed = new Set<string>();
      const sorted = [...profileIds].sort();
      for (let i = 0; i < sorted.length; i += 1000) {
        const rows = await db.query<{ profile_id: string }>(
          `INSERT INTO enrichment.reservations (community_id, profile_id, depth, run_id)
           SELECT $1, p, $2, $3 FROM unnest($4::text[]) AS t(p) ORDER BY p
           ON CONFLICT DO NOTHING RETURNING profile_id`,
          [communityId, depth, runId, sorted.slice(i, i + 1000)],
        );
        for (const r of rows) claimed.add(r.profile_id);
      }
      return claimed;
    },

    /** Hands back reservations of a run that it will not work on (people found already enriched). */
    async unreserve(runId: string, profileIds: string[]): Promise<void> {
      if (profileIds.length === 0) return;
      await db.query('DELETE FROM enrichment.reservations WHERE run_id = $1 AND profile_id = ANY($2::text[])', [runId, profileIds]);
    },

    /** Of these members, those some open run holds at one of these tiers (estimates count them out). */
    async reservedAmong(communityId: string, profileIds: string[], depths: Depth[]): Promise<Set<string>> {
      if (profileIds.length === 0) return new Set();
      const rows = await db.query<{ profile_id: string }>(
        `SELECT DISTINCT profile_id FROM enrichment.reservations
          WHERE community_id = $1 AND profile_id = ANY($2::text[]) AND depth = ANY($3::text[])`,
        [communityId, profileIds, depths],
      );
      return new Set(rows.map((r) => r.profile_id));
    },

    async remove(id: string): Promise<void> {
      await db.query('DELETE FROM enrichment.runs WHERE id = $1', [id]);
    },

    async find(id: string): Promise<RunRow | undefined> {
      return (await db.query<RunRow>('SELECT * FROM enrichment.runs WHERE id = $1', [id]))[0];
    },

    /** The run's counts (a run without items counts zero). */
    async counts(id: string): Promise<RunCounts> {
      return (await repository.countsOf([id])).get(id)!;
    },

    /** The counts of each run, kept by their items' writes (migration 005): a row a run, whatever its size. */
    async countsOf(runIds: readonly string[]): Promise<Map<string, RunCounts>> {
      const counts = new Map<string, RunCounts>(runIds.map((id) => [id, { total: 0, succeeded: 0, failed: 0, skipped: 0, credits: 0 }]));
      const rows = await db.query<RunCounts & { run_id: string }>(
        'SELECT run_id, total, succeeded, failed, skipped, credits FROM enrichment.run_counts WHERE run_id = ANY($1::text[])',
        [runIds],
      );
      for (const { run_id, ...c } of rows) counts.set(run_id, c);
      return counts;
    },

    /** A page of a run's items in profile id order, after `after` (empty: from the start). */
    async items(id: string, after: string, limit: number): Promise<ItemRow[]> {
      return db.query<ItemRow>(
        'SELECT * FROM enrichment.run_items WHERE run_id = $1 AND profile_id > $2 ORDER BY profile_id LIMIT $3',
        [id, after, limit],
      );
    },

    /** The open items of runs given up (their workers kept dying): failed, their reservations released. */
    async failOpenItems(ids: string[]): Promise<void> {
      await db.query(
        `WITH ended AS (
           UPDATE enrichment.run_items SET status = 'failed', reason = 'the run stopped before reaching this person', finished_at = now()
            WHERE run_id = ANY($1::text[]) AND status = 'pending' RETURNING run_id, profile_id)
         DELETE FROM enrichment.reservations r USING ended WHERE r.run_id = ended.run_id AND r.profile_id = ended.profile_id`,
        [ids],
      );
    },

    async pendingItems(id: string, limit: number, after = ''): Promise<string[]> {
      const rows = await db.query<{ profile_id: string }>(
        `SELECT profile_id FROM enrichment.run_items WHERE run_id = $1 AND status = 'pending' AND profile_id > $3
          ORDER BY profile_id LIMIT $2`,
        [id, limit, after],
      );
      return rows.map((r) => r.profile_id);
    },

    /** Ends a pending item of this claim (failed or skipped); false when the claim was lost. */
    async settleItem(runId: string, attempt: number, profileId: string, status: 'failed' | 'skipped', reason: string): Promise<boolean> {
      const rows = await db.query(
        `WITH ended AS (
           UPDATE enrichment.run_items i SET status = $4, reason = $5, finished_at = now()
            WHERE i.run_id = $1 AND i.profile_id = $3 AND i.status = 'pending'
              AND ${HELD}
          RETURNING i.run_id, i.profile_id),
         released AS (DELETE FROM enrichment.reservations r USING ended WHERE r.run_id = ended.run_id AND r.profile_id = ended.profile_id)
         SELECT profile_id FROM ended`,
        [runId, attempt, profileId, status, reason],
      );
      return rows.length === 1;
    },

    /** Marks a pending item succeeded for this claim (inside the transaction writing its data). */
    async succeedItem(runId: string, attempt: number, profileId: string, searchText: string): Promise<boolean> {
      const rows = await db.query(
        `WITH ${SUCCEED_PENDING_ITEMS}
         SELECT profile_id FROM ended`,
        [runId, attempt, [profileId], [searchText]],
      );
      return rows.length === 1;
    },

    /**
     * Marks pending items succeeded for this claim and writes the members' enrichment data, a whole
     * batch in one statement (one round trip, atomic): each item first, then its data, as an
     * erasure takes them. Returns the people written; one missing was no longer pending (erased,
     * or settled by another claim) or the claim no longer held, and nothing of theirs is written.
     */
    async succeedMemberItems(run: { id: string; communityId: string; depth: Depth }, attempt: number, people: readonly EnrichedMember[]): Promise<string[]> {
      if (people.length === 0) return [];
      const rows = await db.query<{ profile_id: string }>(
        `WITH ${SUCCEED_PENDING_ITEMS},
         written AS (
           INSERT INTO enrichment.member_enrichment (community_id, profile_id, depth, data, enriched_at)
           SELECT $5, ended.profile_id, $6, d.data, now()
             FROM ended JOIN unnest($3::text[], $7::jsonb[]) AS d(profile_id, data) ON d.profile_id = ended.profile_id
           ON CONFLICT (community_id, profile_id) DO UPDATE SET depth = EXCLUDED.depth, data = EXCLUDED.data, enriched_at = now()
           RETURNING profile_id)
         SELECT profile_id FROM written`,
        [run.id, attempt, people.map((p) => p.profileId), people.map((p) => p.searchText), run.communityId, run.depth,
          people.map((p) => JSON.stringify(p.data))],
      );
      return rows.map((r) => r.profile_id);
    },

    /** Succeeded items whose charge or search indexing is not recorded yet. */
    async unsettled(runId: string, limit: number): Promise<ItemRow[]> {
      return db.query<ItemRow>(
        `SELECT * FROM enrichment.run_items WHERE run_id = $1 AND status = 'succeeded' AND (NOT charged OR NOT indexed)
          ORDER BY profile_id LIMIT $2`,
        [runId, limit],
      );
    },

    /** Runs already finished that still have people to charge or index (a billing or search outage). */
    async finishedUnsettled(limit: number): Promise<RunRow[]> {
      return db.query<RunRow>(
        `SELECT r.* FROM enrichment.runs r
          WHERE r.status IN ('succeeded', 'failed')
            AND EXISTS (SELECT 1 FROM enrichment.run_items i
                         WHERE i.run_id = r.id AND i.status = 'succeeded' AND (NOT i.charged OR NOT i.indexed))
          ORDER BY r.finished_at LIMIT $1`,
        [limit],
      );
    },

    /**
     * Records what settling a group did, in one statement (a statement each for the charges and
     * the indexing wrote every item twice more): `credits` null keeps the credits the item holds
     * (a self run, metered when it started).
     */
    async markSettled(runId: string, settled: ReadonlyArray<{ profileId: string; charged: boolean; credits: number | null; indexed: boolean }>): Promise<void> {
      if (settled.length === 0) return;
      await db.query(
        `UPDATE enrichment.run_items i
            SET charged = i.charged OR s.charged, credits_charged = CASE WHEN s.charged THEN coalesce(s.credits, i.credits_charged) ELSE i.credits_charged END,
                indexed = i.indexed OR s.indexed
           FROM unnest($2::text[], $3::bool[], $4::int8[], $5::bool[]) AS s(profile_id, charged, credits, indexed)
          WHERE i.run_id = $1 AND i.profile_id = s.profile_id`,
        [runId, settled.map((s) => s.profileId), settled.map((s) => s.charged), settled.map((s) => s.credits), settled.map((s) => s.indexed)],
      );
    },

    async markIndexed(runId: string, profileIds: string[]): Promise<void> {
      await db.query('UPDATE enrichment.run_items SET indexed = true WHERE run_id = $1 AND profile_id = ANY($2::text[])', [runId, profileIds]);
    },

    /**
     * A self run is metered when it starts: the charge is its one person's, so the item carries it
     * too and the run's figure (the sum of its items') equals the ledger's.
     */
    async markMetered(runId: string, credits: number): Promise<void> {
      await db.query(
        `WITH run AS (UPDATE enrichment.runs SET metered = true, metered_credits = $2 WHERE id = $1 RETURNING id)
         UPDATE enrichment.run_items SET credits_charged = $2 WHERE run_id IN (SELECT id FROM run)`,
        [runId, credits],
      );
    },

    /** Of these members, those this community already enriched at one of these depths. */
    async enrichedAmong(communityId: string, profileIds: string[], depths: Depth[]): Promise<Set<string>> {
      if (profileIds.length === 0) return new Set();
      const rows = await db.query<{ profile_id: string }>(
        `SELECT profile_id FROM enrichment.member_enrichment
          WHERE community_id = $1 AND profile_id = ANY($2::text[]) AND depth = ANY($3::text[])`,
        [communityId, profileIds, depths],
      );
      return new Set(rows.map((r) => r.profile_id));
    },

    /**
     * For each ask, when its community enriched each of its people (those never enriched left out),
     * in one statement. Here and in memberEnrichments each person is read by the table's key: the
     * lateral read is fenced (OFFSET 0), as unfenced it was pulled up into a join that read every
     * enriched member of every community where the statistics are an empty table's (PGlite never
     * analyses): 21 people among 2,000 enriched: 6.8 ms, 0.5 ms fenced.
     */
    async enrichedAt(asked: readonly { communityId: string; profileIds: readonly string[] }[]): Promise<Array<{ profile_id: string; enriched_at: Date }[]>> {
      const pairs = asked.flatMap((a, i) => a.profileIds.map((profileId) => ({ i, communityId: a.communityId, profileId })));
      const rows = await db.query<{ i: number; profile_id: string; enriched_at: Date }>(
        `SELECT a.i::int8 AS i, e.profile_id, e.enriched_at
           FROM unnest($1::int8[], $2::text[], $3::text[]) AS a(i, community_id, profile_id)
          CROSS JOIN LATERAL (SELECT profile_id, enriched_at FROM enrichment.member_enrichment
                               WHERE community_id = a.community_id AND profile_id = a.profile_id OFFSET 0) e`,
        [pairs.map((p) => p.i), pairs.map((p) => p.communityId), pairs.map((p) => p.profileId)],
        { genericPlan: true },
      );
      const answers = asked.map(() => [] as { profile_id: string; enriched_at: Date }[]);
      for (const { i, ...row } of rows) answers[Number(i)]!.push(row);
      return answers;
    },

    /**
     * A member's erasure (call inside a transaction): their open items in every run of the
     * community first, then this community's data of them. A worker writes an item then its data,
     * in the same order, so data erased here is never written back by a run in flight.
     * Returns how many data rows were erased.
     */
    async eraseMember(communityId: string, profileId: string): Promise<number> {
      await db.query(
        `WITH ended AS (
           UPDATE enrichment.run_items i SET status = 'skipped', reason = 'erased from the community', finished_at = now()
             FROM enrichment.runs r
            WHERE i.run_id = r.id AND r.community_id = $1 AND i.profile_id = $2 AND i.status = 'pending'
          RETURNING i.run_id, i.profile_id)
         DELETE FROM enrichment.reservations r USING ended WHERE r.run_id = ended.run_id AND r.profile_id = ended.profile_id`,
        [communityId, profileId],
      );
      const rows = await db.query('DELETE FROM enrichment.member_enrichment WHERE community_id = $1 AND profile_id = $2 RETURNING profile_id', [
        communityId,
        profileId,
      ]);
      return rows.length;
    },

    async upsertSelfEnrichment(userId: string, profileId: string, depth: Depth, data: unknown): Promise<void> {
      await db.query(
        `INSERT INTO enrichment.self_enrichment (user_id, profile_id, depth, data, enriched_at)
         VALUES ($1, $2, $3, $4::jsonb, now())
         ON CONFLICT (user_id) DO UPDATE SET profile_id = EXCLUDED.profile_id, depth = EXCLUDED.depth, data = EXCLUDED.data, enriched_at = now()`,
        [userId, profileId, depth, JSON.stringify(data)],
      );
    },

    /** Each ask's community's data of its person, or undefined, in one statement. */
    async memberEnrichments(asked: readonly { communityId: string; profileId: string }[]): Promise<Array<EnrichmentDataRow | undefined>> {
      const rows = await db.query<EnrichmentDataRow & { i: number }>(
        `SELECT a.i::int8 AS i, e.depth, e.data, e.enriched_at
           FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS a(community_id, profile_id, i)
          CROSS JOIN LATERAL (SELECT depth, data, enriched_at FROM enrichment.member_enrichment
                               WHERE community_id = a.community_id AND profile_id = a.profile_id OFFSET 0) e`,
        [asked.map((a) => a.communityId), asked.map((a) => a.profileId)],
        { genericPlan: true },
      );
      const answers: Array<EnrichmentDataRow | undefined> = asked.map(() => undefined);
      for (const { i, ...row } of rows) answers[Number(i) - 1] = row;
      return answers;
    },

    async selfEnrichment(userId: string): Promise<EnrichmentDataRow | undefined> {
      return (await db.query<EnrichmentDataRow>(
        'SELECT depth, data, enriched_at FROM enrichment.self_enrichment WHERE user_id = $1',
        [userId],
      ))[0];
    },
  };
  return repository;
}

export type RunsRepository = ReturnType<typeof createRunsRepository>;
