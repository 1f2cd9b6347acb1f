// The run worker against the real store (both engines), with the real offline pipeline and a
// recording implementation of the run's outside effects (people, charges, indexing): people whose
// enrichment fails are failed with a reason and never charged, a run where nobody could be
// enriched is failed, an erasure wins over a run in flight, a charge that did not go through is
// settled later exactly once, a claim that lost its lease can no longer write, and a run whose
// workers kept dying is failed after its last attempt.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openTestDatabase, storeNames } from '../../test/helpers/stores.js';
import type { Database } from '../kit/db/database.js';
import { createLogger } from '../kit/logger.js';
import { createEnrichmentPipeline, OFFLINE_PROVIDERS, type EnrichmentPipeline, type PersonInput } from './pipeline/index.js';
import type { RunEffects } from './run-effects.js';
import { createRunWorker } from './run-worker.js';
import { createRunQueue, createRunsRepository } from './runs.repository.js';

const COMMUNITY = 'c_lab';
const person = (id: string): PersonInput => ({
  profileId: id,
  name: `Person ${id}`,
  headline: 'Structural biologist',
  bio: 'Works on protein folding.',
  organization: null,
  location: null,
  orcid: null,
  linkedinUrl: null,
});

/** The outside world of a run, recorded: charges are posted once per reference, as billing does. */
function recordingEffects(members: string[]) {
  const charges = new Map<string, number>();
  /** Charge calls that went through, per reference: what the worker asked billing for. */
  const chargeCalls = new Map<string, number>();
  const indexed: string[] = [];
  let failCharges = 0;
  const effects: RunEffects = {
    async members(_c, ids) {
      return new Map(ids.filter((id) => members.includes(id)).map((id) => [id, person(id)]));
    },
    async peers() {
      return members.map((id) => ({ profileId: id, name: `Person ${id}`, orcid: null }));
    },
    async profile(id) {
      return person(id);
    },
    async chargeMany(run, profileIds) {
      if (failCharges > 0) {
        failCharges--;
        throw new Error('billing unavailable');
      }
      return profileIds.map((profileId) => {
        const reference = `enrichment_${run.depth}:${run.id}:${profileId}`;
        chargeCalls.set(reference, (chargeCalls.get(reference) ?? 0) + 1);
        if (!charges.has(reference)) charges.set(reference, 1);
        return 1;
      });
    },
    async meterSelf() {
      return 0;
    },
    async indexCommunity(_c, entries) {
      indexed.push(...entries.map((e) => e.profileId));
    },
    async applyOwn() {},
  };
  return { effects, charges, chargeCalls, indexed, failNextCharges: (n: number) => (failCharges = n) };
}

/** The offline pipeline, except for the people it is told to fail on; `enriched` counts its calls per person. */
function pipelineFailingFor(ids: string[], enriched = new Map<string, number>()): EnrichmentPipeline {
  const real = createEnrichmentPipeline(OFFLINE_PROVIDERS);
  return {
    async enrich(p, depth, context) {
      enriched.set(p.profileId, (enriched.get(p.profileId) ?? 0) + 1);
      if (ids.includes(p.profileId)) throw new Error(`cannot enrich ${p.profileId}`);
      return real.enrich(p, depth, context);
    },
  };
}

describe.each(storeNames())('enrichment run worker on %s', (store) => {
  let db: Database;
  let close: () => Promise<void>;
  let n = 0;
  const logger = createLogger('silent');
  beforeAll(async () => {
    ({ db, close } = await openTestDatabase(store));
  });
  afterAll(async () => close());
  beforeEach(() => void n++);

  async function newRun(people: string[]) {
    const id = `run_t${n}`;
    await db.transaction((tx) =>
      createRunsRepository(tx).insert(
        {
          id,
          kind: 'community',
          communityId: COMMUNITY,
          credentialId: 'key_t',
          caller: {},
          depth: 'quick',
          payer: { type: 'organization', id: 'o_lab' },
        },
        people.map((profileId) => ({ profileId })),
      ),
    );
    return id;
  }

  function worker(pipeline: EnrichmentPipeline, effects: RunEffects, leaseMs = 30_000) {
    return createRunWorker({ db, pipeline, effects, logger, concurrency: 2, leaseMs, maxAttempts: 5 });
  }

  async function untilFinished(runId: string) {
    const repo = createRunsRepository(db);
    for (let i = 0; i < 200; i++) {
      const run = await repo.find(runId);
      if (run?.status === 'succeeded' || run?.status === 'failed') return run;
      await new Promise((r) => setTimeout(r, 20));
    }
    throw new Error(`run ${runId} did not finish`);
  }

  async function items(runId: string) {
    return Object.fromEntries((await createRunsRepository(db).items(runId, '', 100)).map((i) => [i.profile_id, i]));
  }

  async function enrichedRows(ids: string[]) {
    const rows = await db.query<{ profile_id: string }>(
      'SELECT profile_id FROM enrichment.member_enrichment WHERE community_id = $1 AND profile_id = ANY($2::text[]) ORDER BY profile_id',
      [COMMUNITY, ids],
    );
    return rows.map((r) => r.profile_id);
  }

  it('fails the people it cannot enrich, with a reason, and charges only the others', async () => {
    const people = [`p${n}_a`, `p${n}_b`, `p${n}_c`];
    const world = recordingEffects(people);
    const runId = await newRun(people);
    await worker(pipelineFailingFor([people[1]!]), world.effects).claimAndWork(runId);
    const run = await untilFinished(runId);
    expect(run.status).toBe('succeeded');
    const byId = await items(runId);
    expect(byId[people[1]!]).toMatchObject({ status: 'failed', reason: 'enrichment failed unexpectedly; start a new run to retry', credits_charged: 0 });
    expect(byId[people[0]!]).toMatchObject({ status: 'succeeded', charged: true, indexed: true, credits_charged: 1 });
    expect([...world.charges.keys()].sort()).toEqual([people[0], people[2]].map((p) => `enrichment_quick:${runId}:${p}`));
    expect(await enrichedRows(people)).toEqual([people[0], people[2]]);
    expect(world.indexed.sort()).toEqual([people[0], people[2]]);
  });

  it('fails a run where nobody could be enriched, charging nothing', async () => {
    const people = [`p${n}_a`, `p${n}_b`];
    const world = recordingEffects(people);
    const runId = await newRun(people);
    await worker(pipelineFailingFor(people), world.effects).claimAndWork(runId);
    const run = await untilFinished(runId);
    expect(run).toMatchObject({ status: 'failed', error: 'no person could be enriched' });
    expect(run.finished_at).not.toBeNull();
    expect(world.charges.size).toBe(0);
  });

  it('skips a person erased before the run reaches them, and writes none of their data back', async () => {
    const people = [`p${n}_a`, `p${n}_b`];
    const world = recordingEffects(people);
    const runId = await newRun(people);
    expect(await db.transaction((tx) => createRunsRepository(tx).eraseMember(COMMUNITY, people[1]!))).toBe(0);
    await worker(pipelineFailingFor([]), world.effects).claimAndWork(runId);
    await untilFinished(runId);
    expect((await items(runId))[people[1]!]).toMatchObject({ status: 'skipped', reason: 'erased from the community' });
    expect(await enrichedRows(people)).toEqual([people[0]]);
    expect([...world.charges.keys()]).toEqual([`enrichment_quick:${runId}:${people[0]}`]);
  });

  it('skips people who are no longer members', async () => {
    const people = [`p${n}_a`, `p${n}_b`];
    const world = recordingEffects([people[0]!]);
    const runId = await newRun(people);
    await worker(pipelineFailingFor([]), world.effects).claimAndWork(runId);
    await untilFinished(runId);
    expect((await items(runId))[people[1]!]).toMatchObject({ status: 'skipped', reason: 'no longer a member of this community' });
  });

  it('settles a charge that did not go through when the run is taken over, exactly once', async () => {
    const people = [`p${n}_a`, `p${n}_b`, `p${n}_c`];
    const world = recordingEffects(people);
    world.failNextCharges(1);
    const runId = await newRun(people);
    // The first claim stops at the failed charge, leaving the run running under a short lease.
    const enriched = new Map<string, number>();
    const first = worker(pipelineFailingFor([], enriched), world.effects, 1000);
    await first.claimAndWork(runId);
    await new Promise((r) => setTimeout(r, 300));
    const paused = await createRunsRepository(db).find(runId);
    expect(paused?.status).toBe('running');
    await new Promise((r) => setTimeout(r, 1000));
    // Any worker's tick takes the run over once the lease has run out, and settles it.
    await worker(pipelineFailingFor([], enriched), world.effects, 1000).tick();
    const run = await untilFinished(runId);
    expect(run.status).toBe('succeeded');
    expect(run.attempts).toBe(2);
    // Exactly once, counted at the calls (not at a billing that would drop repeats): one charge
    // that went through per person, and nobody enriched twice.
    expect(Object.fromEntries(world.chargeCalls)).toEqual(Object.fromEntries(people.map((id) => [`enrichment_quick:${runId}:${id}`, 1])));
    expect(Object.fromEntries(enriched)).toEqual(Object.fromEntries(people.map((id) => [id, 1])));
    expect(Object.values(await items(runId)).every((i) => i.charged && i.credits_charged === 1)).toBe(true);
  });

  it('fences a claim that lost its lease: its writes are refused, the new claim’s accepted', async () => {
    const people = [`p${n}_a`];
    const runId = await newRun(people);
    const repo = createRunsRepository(db);
    const queue = createRunQueue(db, { leaseMs: 1000, maxAttempts: 5 });
    const firstClaim = await queue.claim(runId);
    expect(firstClaim?.attempts).toBe(1);
    await db.query(`UPDATE enrichment.runs SET lease_until = now() - interval '1 second' WHERE id = $1`, [runId]);
    const second = await queue.claim(runId);
    expect(second?.attempts).toBe(2);
    expect(await queue.heartbeat(runId, 1)).toBe(false);
    expect(await repo.succeedItem(runId, 1, people[0]!, 'text')).toBe(false);
    expect(await repo.succeedItem(runId, 2, people[0]!, 'text')).toBe(true);
  });

  it('writes a group of people, each item with its data, skipping one no longer pending; a stale claim writes nothing', async () => {
    const people = [`p${n}_a`, `p${n}_b`, `p${n}_c`];
    const runId = await newRun(people);
    const repo = createRunsRepository(db);
    const queue = createRunQueue(db, { leaseMs: 30_000, maxAttempts: 5 });
    expect((await queue.claim(runId))?.attempts).toBe(1);
    // The second person was erased meanwhile (an erasure settles their pending item first).
    expect(await repo.settleItem(runId, 1, people[1]!, 'skipped', 'erased')).toBe(true);
    const group = people.map((profileId) => ({ profileId, searchText: `text of ${profileId}`, data: { about: profileId } }));
    const target = { id: runId, communityId: COMMUNITY, depth: 'quick' as const };
    expect(await repo.succeedMemberItems(target, 2, group)).toEqual([]);
    expect((await repo.succeedMemberItems(target, 1, group)).sort()).toEqual([people[0], people[2]]);
    const byId = await items(runId);
    expect(byId[people[0]!]).toMatchObject({ status: 'succeeded', search_text: `text of ${people[0]}` });
    expect(byId[people[1]!]).toMatchObject({ status: 'skipped' });
    expect(byId[people[2]!]).toMatchObject({ status: 'succeeded', search_text: `text of ${people[2]}` });
    const data = await db.query<{ profile_id: string; data: unknown }>(
      'SELECT profile_id, data FROM enrichment.member_enrichment WHERE community_id = $1 AND profile_id = ANY($2) ORDER BY profile_id',
      [COMMUNITY, people],
    );
    expect(data).toEqual([{ profile_id: people[0], data: { about: people[0] } }, { profile_id: people[2], data: { about: people[2] } }]);
    // Written once: the same group again finds nothing pending.
    expect(await repo.succeedMemberItems(target, 1, group)).toEqual([]);
  });

  it('fails a run whose worker stopped on its last allowed attempt, and the people it had not reached, charging nothing more', async () => {
    const people = [`p${n}_a`, `p${n}_b`];
    const world = recordingEffects(people);
    const runId = await newRun(people);
    // Four workers died holding it; the fifth claims it, enriches the first person, and dies too.
    await db.query(`UPDATE enrichment.runs SET attempts = 4 WHERE id = $1`, [runId]);
    const repo = createRunsRepository(db);
    const queue = createRunQueue(db, { leaseMs: 1000, maxAttempts: 5 });
    const lastClaim = await queue.claim(runId);
    expect(lastClaim?.attempts).toBe(5);
    expect(await repo.succeedItem(runId, 5, people[0]!, 'text')).toBe(true);
    await db.query(`UPDATE enrichment.runs SET lease_until = now() - interval '1 second' WHERE id = $1`, [runId]);

    await worker(pipelineFailingFor([]), world.effects).tick();
    const run = await repo.find(runId);
    expect(run).toMatchObject({ status: 'failed', error: 'the enrichment worker stopped too many times', attempts: 5 });
    const byId = await items(runId);
    // The person enriched before the last worker died is still charged (settled by the same tick),
    // once; the one it never reached is failed and charged nothing.
    expect(byId[people[0]!]).toMatchObject({ status: 'succeeded', charged: true, credits_charged: 1 });
    expect(byId[people[1]!]).toMatchObject({ status: 'failed', reason: 'the run stopped before reaching this person', credits_charged: 0 });
    expect([...world.charges.keys()]).toEqual([`enrichment_quick:${runId}:${people[0]}`]);
    // No claim can take the run again.
    expect(await queue.claim(runId)).toBeUndefined();
    await worker(pipelineFailingFor([]), world.effects).tick();
    expect(world.charges.size).toBe(1);
  });
});
