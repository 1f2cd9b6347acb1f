// After the kills of a chaos suite: finish what the crashes interrupted the way a client would
// (retry each keyed request with its key, retry each erasure, poll each search), wait until the
// background workers are done, then compare the stored state with what was asked — the ledger
// with the runs' items and the search jobs, the erased people with the roster, member reads,
// search and the stores.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import pg from 'pg';
import pLimit from 'p-limit';
import { expect } from 'vitest';
import { LEASE_SECONDS } from '../../gateway/core/idempotency/policy.js';
import { DEFAULT_RATES } from '../../services/billing/rates.js';
import { repoRoot } from '../../services/kit/paths.js';
import { send, unsettled, type Answer, type ChaosWorkload } from './chaos-workload.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** How long after its process died a claimed key may still answer 409: the claim's lease, plus clock and start-up slack. */
export const CLAIM_BOUND_MS = LEASE_SECONDS * 1000 + 5000;

async function until<T>(what: string, deadlineMs: number, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not reached within ${deadlineMs} ms`);
    await sleep(250);
  }
}

/**
 * Retries every keyed request that got no outcome with its key and body until it gets one (a 409
 * means the dead process's claim is still leased: wait as Retry-After says). Records on each call
 * how long its 409s lasted.
 */
export async function settleKeyedCalls(w: ChaosWorkload, baseUrl: string, secret: string): Promise<void> {
  // A few at a time, as one client would; each until its claim's lease is surely over, and then
  // some time for the slowest answer.
  const limit = pLimit(4);
  const started = Date.now();
  await Promise.all(
    w.calls.filter((c) => unsettled(c.answer)).map((call) => limit(async () => {
      const deadline = Math.max(call.failedAt ?? started, started) + CLAIM_BOUND_MS + 60_000;
      let answer: Answer;
      for (;;) {
        const sentAt = Date.now();
        answer = await send(baseUrl, secret, 'POST', call.path, call.body, call.key);
        (call.retries ??= []).push(`${answer.status || answer.error} in ${Date.now() - sentAt} ms`);
        if (answer.status === 409) {
          const now = Date.now();
          call.conflict = { first: call.conflict?.first ?? now, last: now, count: (call.conflict?.count ?? 0) + 1 };
        }
        if ((answer.status !== 409 && !unsettled(answer)) || Date.now() > deadline) break;
        const retryAfter = Number(answer.headers?.get('retry-after') ?? '1');
        await sleep(Math.min(Math.max(retryAfter, 0.25), 2) * 1000);
      }
      call.answer = answer;
      w.learn(call);
    })),
  );
}

/** Retries every erasure until it is done (200) or there is nothing left to erase (404). */
export async function settleErasures(w: ChaosWorkload, baseUrl: string, secret: string, communityId: string): Promise<Map<string, number>> {
  const outcomes = new Map<string, number>();
  await Promise.all(
    w.erasures.map(async (profileId) => {
      const status = await until(`erasure of ${profileId}`, 30_000, async () => {
        const res = await send(baseUrl, secret, 'DELETE', `/v1/communities/${communityId}/members/${profileId}`);
        return res.status === 200 || res.status === 404 ? res.status : undefined;
      });
      outcomes.set(profileId, status);
    }),
  );
  return outcomes;
}

/** Polls every search started until it is complete or failed; returns the final statuses. */
export async function settleSearches(w: ChaosWorkload, baseUrl: string, secret: string, deadlineMs: number): Promise<Map<string, string>> {
  const outcomes = new Map<string, string>();
  await Promise.all(
    [...w.searchIds].map(async (id) => {
      const status = await until(`search ${id}`, deadlineMs, async () => {
        const res = await send(baseUrl, secret, 'GET', `/v1/search/${id}`);
        return res.status === 200 && (res.body.status === 'complete' || res.body.status === 'failed') ? (res.body.status as string) : undefined;
      });
      outcomes.set(id, status);
    }),
  );
  return outcomes;
}

/** The workers' background state the assertions are about: open runs and searches, unsettled charges. */
export async function backlog(sql: pg.Client) {
  const count = async (query: string) => Number((await sql.query<{ n: string }>(query)).rows[0]!.n);
  return {
    openRuns: await count(`SELECT count(*) AS n FROM enrichment.runs WHERE status IN ('queued', 'running')`),
    unchargedItems: await count(
      `SELECT count(*) AS n FROM enrichment.run_items i JOIN enrichment.runs r ON r.id = i.run_id
        WHERE r.kind = 'community' AND i.status = 'succeeded' AND NOT i.charged`,
    ),
    openSearches: await count(`SELECT count(*) AS n FROM search.search_jobs WHERE status IN ('pending', 'running')`),
    unchargedSearches: await count(`SELECT count(*) AS n FROM search.search_jobs WHERE status = 'complete' AND charged_at IS NULL`),
  };
}

/** Waits until no run or search is open and every finished one is charged (or the deadline passes). */
export async function waitForQuiet(sql: pg.Client, deadlineMs: number): Promise<Awaited<ReturnType<typeof backlog>>> {
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    const state = await backlog(sql);
    if (Object.values(state).every((n) => n === 0) || Date.now() > deadline) return state;
    await sleep(250);
  }
}

const CHARGED_OPERATIONS = ['search', 'enrichment_quick', 'enrichment_standard', 'enrichment_deep'] as const;

/**
 * Every charge exactly once: the ledger's search and enrichment entries are exactly one per complete
 * search job and one per succeeded person of a community run, each at its rate; none for failed or
 * skipped ones; nobody charged twice for one community and tier; each item records what it cost.
 */
export async function expectLedgerMatchesWork(sql: pg.Client): Promise<{ searches: number; enriched: number }> {
  const ledger = (
    await sql.query<{ reference: string; operation: string; amount: string }>(
      `SELECT reference, operation, amount FROM billing.ledger_entries WHERE operation = ANY($1::text[])`,
      [CHARGED_OPERATIONS],
    )
  ).rows;
  const charged = new Map(ledger.map((e) => [e.reference, e]));
  expect(charged.size, 'one ledger entry per reference').toBe(ledger.length);

  const jobs = (await sql.query<{ id: string; status: string }>('SELECT id, status FROM search.search_jobs')).rows;
  const searchRefs = jobs.filter((j) => j.status === 'complete').map((j) => `search:${j.id}`).sort();
  const ledgerSearchRefs = ledger.filter((e) => e.operation === 'search').map((e) => e.reference).sort();
  expect(ledgerSearchRefs, 'searches charged = complete searches').toEqual(searchRefs);
  for (const ref of searchRefs) expect(Number(charged.get(ref)!.amount), ref).toBe(-DEFAULT_RATES.search);

  const items = (
    await sql.query<{ run_id: string; depth: 'quick' | 'standard' | 'deep'; community_id: string; profile_id: string; status: string; credits_charged: string }>(
      `SELECT r.id AS run_id, r.depth, r.community_id, i.profile_id, i.status, i.credits_charged
         FROM enrichment.run_items i JOIN enrichment.runs r ON r.id = i.run_id WHERE r.kind = 'community'`,
    )
  ).rows;
  const succeeded = items.filter((i) => i.status === 'succeeded');
  const itemRefs = succeeded.map((i) => `enrichment_${i.depth}:${i.run_id}:${i.profile_id}`).sort();
  const ledgerItemRefs = ledger.filter((e) => e.operation.startsWith('enrichment_')).map((e) => e.reference).sort();
  expect(ledgerItemRefs, 'enrichment charges = succeeded run items').toEqual(itemRefs);
  for (const i of items) {
    const rate = DEFAULT_RATES[`enrichment_${i.depth}`];
    const ref = `enrichment_${i.depth}:${i.run_id}:${i.profile_id}`;
    if (i.status === 'succeeded') {
      expect(Number(charged.get(ref)!.amount), ref).toBe(-rate);
      expect(Number(i.credits_charged), `${ref} records its charge`).toBe(rate);
    } else {
      expect(Number(i.credits_charged), `${ref} (${i.status}) is not charged`).toBe(0);
    }
  }
  // A person is enriched (and charged) at most once per community and tier: no run here asks for
  // include_already_enriched, so a second charge means two runs worked the same person.
  const perTier = new Map<string, string[]>();
  for (const i of succeeded) {
    const k = `${i.community_id}/${i.profile_id}/${i.depth}`;
    perTier.set(k, [...(perTier.get(k) ?? []), i.run_id]);
  }
  const twice = [...perTier].filter(([, runs]) => runs.length > 1).map(([k, runs]) => `${k} charged by ${runs.join(', ')}`);
  expect(twice, 'people charged twice for one community and tier').toEqual([]);
  return { searches: searchRefs.length, enriched: succeeded.length };
}

/** Each run, as the API reports it: finished, and charged what its items cost. */
export async function expectRunsFinished(w: ChaosWorkload, baseUrl: string, secret: string, communityId: string): Promise<void> {
  for (const runId of w.runIds) {
    const res = await send(baseUrl, secret, 'GET', `/v1/communities/${communityId}/enrich/runs/${runId}`);
    expect(res.status, runId).toBe(200);
    expect(['succeeded', 'failed'], `${runId} is ${res.body.status}`).toContain(res.body.status);
    const { total, succeeded, failed, skipped } = res.body.counts;
    expect(succeeded + failed + skipped, `${runId}: every person accounted for`).toBe(total);
    expect(res.body.credits_charged, `${runId}: charged for each enriched person`).toBe(succeeded * DEFAULT_RATES.enrichment_standard);
  }
}

/** Everyone in the roster, following next_cursor to the end. */
export async function roster(baseUrl: string, secret: string, communityId: string): Promise<Set<string>> {
  const ids = new Set<string>();
  let after: string | null = null;
  do {
    const res = await send(baseUrl, secret, 'GET', `/v1/communities/${communityId}/members?limit=200${after ? `&after=${encodeURIComponent(after)}` : ''}`);
    expect(res.status).toBe(200);
    for (const m of res.body.members as { profile_id: string }[]) ids.add(m.profile_id);
    after = res.body.next_cursor;
  } while (after);
  return ids;
}

/** The profile ids a community search for this text finds (waiting for the result). */
export async function searchFinds(baseUrl: string, secret: string, communityId: string, query: string): Promise<string[]> {
  let res = await send(baseUrl, secret, 'POST', '/v1/search', { query, scope: 'community', community_id: communityId, wait_seconds: 20 });
  for (let i = 0; i < 40 && res.status === 202; i++) {
    await sleep(500);
    res = await send(baseUrl, secret, 'GET', `/v1/search/${res.body.search_id}`);
    if (res.status === 200 && res.body.status !== 'complete' && res.body.status !== 'failed') res.status = 202;
  }
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.body.status).toBe('complete');
  return (res.body.matches as { profile_id: string }[]).map((m) => m.profile_id);
}

/**
 * Every erasure complete: not in the roster, member read 404, no search document, no enrichment
 * data, no membership row, and a search for the person's name does not find them — while a person
 * added alongside who was not erased is found by the same kind of search.
 */
export async function expectErasuresComplete(w: ChaosWorkload, sql: pg.Client, baseUrl: string, secret: string, communityId: string): Promise<void> {
  const members = await roster(baseUrl, secret, communityId);
  const erased = new Set(w.erasures);
  for (const profileId of erased) {
    expect(members.has(profileId), `${profileId} is still in the roster`).toBe(false);
    const read = await send(baseUrl, secret, 'GET', `/v1/communities/${communityId}/members/${profileId}`);
    expect(read.status, `member read of erased ${profileId}`).toBe(404);
    const args = [communityId, profileId];
    expect((await sql.query('SELECT 1 FROM search.documents WHERE community_id = $1 AND profile_id = $2', args)).rowCount, `search document of ${profileId}`).toBe(0);
    expect((await sql.query('SELECT 1 FROM enrichment.member_enrichment WHERE community_id = $1 AND profile_id = $2', args)).rowCount, `enrichment data of ${profileId}`).toBe(0);
    expect((await sql.query('SELECT 1 FROM communities.memberships WHERE community_id = $1 AND profile_id = $2', args)).rowCount, `membership of ${profileId}`).toBe(0);
  }
  // Searches by name: a few erased people, and as the control a few who stayed.
  const kept = [...w.people.values()].filter((p) => !erased.has(p.profileId) && members.has(p.profileId)).slice(0, 3);
  expect(kept.length).toBeGreaterThan(0);
  for (const person of kept) expect(await searchFinds(baseUrl, secret, communityId, person.token), `control: ${person.token} is found`).toContain(person.profileId);
  for (const profileId of [...erased].slice(0, 5)) {
    const person = w.people.get(profileId)!;
    expect(await searchFinds(baseUrl, secret, communityId, person.token), `erased ${person.token} is not found`).not.toContain(profileId);
  }
}

/** `npm run admin -- billing reconcile` against the system `env` points at: its exit code and output. */
export function reconcileCli(env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [join(repoRoot, 'node_modules/tsx/dist/cli.mjs'), join(repoRoot, 'deploy/admin/cli.ts'), 'billing', 'reconcile', '--json'],
      { cwd: repoRoot, env: { ...process.env, ...env, LOG_LEVEL: 'silent' }, timeout: 60_000 },
      (error, stdout, stderr) => resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
    );
  });
}

/** What the run exercised, for the test log: how much traffic, how much of it the kills cut off, how long keys stayed claimed. */
export function summary(w: ChaosWorkload, charged: { searches: number; enriched: number }): string {
  const interrupted = w.calls.filter((c) => c.failedAt !== undefined);
  const conflicts = w.calls.flatMap((c) => (c.conflict && c.failedAt !== undefined ? [c.conflict.last - c.failedAt] : []));
  return JSON.stringify({
    keyed_requests: w.calls.length,
    interrupted: interrupted.length,
    keys_answering_409: conflicts.length,
    longest_409_ms_after_crash: conflicts.length > 0 ? Math.max(...conflicts) : 0,
    runs: w.runIds.size,
    people_enriched: charged.enriched,
    searches_charged: charged.searches,
    erasures: w.erasures.length,
  });
}

/**
 * Once every keyed call has its final answer: each key replays that answer; the erasures and the
 * searches are finished; and the stored state is exact — every erasure complete, the workers quiet,
 * every run finished, the ledger matching the work, and the billing reconcile (run against the
 * system `reconcileEnv` points at) finding no mismatch. Logs what the run exercised.
 */
export async function expectExactAfterChaos(
  w: ChaosWorkload,
  sql: pg.Client,
  baseUrl: string,
  secret: string,
  communityId: string,
  reconcileEnv: Record<string, string>,
): Promise<void> {
  for (const call of w.calls) {
    const again = await send(baseUrl, secret, 'POST', call.path, call.body, call.key);
    expect(again.status, call.key).toBe(call.answer.status);
    expect(again.headers?.get('idempotent-replayed'), call.key).toBe('true');
    expect(again.body, call.key).toEqual(call.answer.body);
  }
  const erasures = await settleErasures(w, baseUrl, secret, communityId);
  expect(erasures.size).toBeGreaterThan(0);
  const searches = await settleSearches(w, baseUrl, secret, 60_000);
  expect(searches.size).toBeGreaterThan(0);

  await expectErasuresComplete(w, sql, baseUrl, secret, communityId);
  expect(await waitForQuiet(sql, 60_000)).toEqual({ openRuns: 0, unchargedItems: 0, openSearches: 0, unchargedSearches: 0 });
  expect(w.runIds.size).toBeGreaterThan(0);
  await expectRunsFinished(w, baseUrl, secret, communityId);
  const charged = await expectLedgerMatchesWork(sql);
  expect(charged.enriched).toBeGreaterThan(0);

  const reconcile = await reconcileCli(reconcileEnv);
  expect(reconcile.stderr).toBe('');
  expect(reconcile.code).toBe(0);
  expect(JSON.parse(reconcile.stdout).mismatches).toEqual([]);
  console.info(`chaos: ${summary(w, charged)}`);
}
