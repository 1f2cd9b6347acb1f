// The system the fuzz suites attack: the whole system in this process (every service on its own
// gRPC port, REST and MCP on their own ports), seeded with a key of every scope, and a view of the
// rows a request could store, so that a suite can check that a refused request stored nothing.
import type { SeedInput } from '../../deploy/admin/seed-schema.js';
import type { Database } from '../../services/kit/db/database.js';
import { SCOPES, type Scope } from '../../services/kit/scopes.js';
import { liveKey, testKey } from './keys.js';
import type { StoreName } from './stores.js';
import { startTestSystem, type TestSystem } from './test-system.js';

const rate = { requested_rate: 6000 };

/** Secrets by name: one key per scope, an every-scope key, and the odd kinds of key. */
export interface FuzzKeys {
  byScope: Record<Scope, string>;
  all: string;
  test: string;
  organization: string;
  otherUser: string;
  freePlan: string;
}

function makeKeys(): FuzzKeys {
  return {
    byScope: Object.fromEntries(SCOPES.map((s) => [s, liveKey()])) as Record<Scope, string>,
    all: liveKey(),
    test: testKey(),
    organization: liveKey(),
    otherUser: liveKey(),
    freePlan: liveKey(),
  };
}

function fuzzSeed(keys: FuzzKeys): SeedInput {
  return {
    users: [
      { id: 'u_ada', email: 'ada@example.org', name: 'Ada', plan: 'paid' },
      { id: 'u_bob', email: 'bob@example.org', name: 'Bob', plan: 'paid' },
      { id: 'u_free', email: 'free@example.org', name: 'Free', plan: 'free' },
    ],
    organizations: [{ id: 'o_lab', name: 'Lab', members: [{ user: 'u_ada', role: 'admin' }] }],
    communities: [
      { id: 'c_bio', name: 'Biology', owner: { organization: 'o_lab' }, api_writes: true },
      { id: 'c_closed', name: 'Closed', owner: { organization: 'o_lab' } },
      { id: 'c_bob', name: 'Bob’s', owner: { user: 'u_bob' }, api_writes: true },
    ],
    profiles: [
      { id: 'p_ada', user: 'u_ada', public: true, name: 'Ada Lovelace', headline: 'Protein design', bio: 'Designs enzymes.', email: 'ada@example.org' },
      { id: 'p_bob', user: 'u_bob', public: true, name: 'Bob Hooke', headline: 'Microscopy', email: 'bob@example.org' },
      { id: 'p_free', user: 'u_free', name: 'Free Person', email: 'free@example.org' },
      { id: 'p_one', name: 'One Person', headline: 'Soil ecology', email: 'one@example.org' },
      { id: 'p_two', name: 'Two Person', headline: 'Marine biology', email: 'two@example.org' },
    ],
    memberships: [
      { community: 'c_bio', profile: 'p_ada', role: 'admin' },
      { community: 'c_bio', profile: 'p_one' },
      { community: 'c_bio', profile: 'p_two' },
      { community: 'c_closed', profile: 'p_ada', role: 'admin' },
      { community: 'c_bob', profile: 'p_bob', role: 'owner' },
    ],
    wallets: [{ owner: { user: 'u_ada' }, balance: 1_000_000 }, { owner: { user: 'u_bob' }, balance: 1_000_000 }, { owner: { organization: 'o_lab' }, balance: 1_000_000 }],
    keys: [
      ...SCOPES.map((s) => ({ id: `k_${s.replace(':', '_')}`, secret: keys.byScope[s], owner: { user: 'u_ada' }, scopes: [s], ...rate })),
      { id: 'k_all', secret: keys.all, owner: { user: 'u_ada' }, scopes: [...SCOPES], ...rate },
      { id: 'k_test', secret: keys.test, owner: { user: 'u_ada' }, scopes: [...SCOPES], environment: 'test', ...rate },
      { id: 'k_org', secret: keys.organization, owner: { organization: 'o_lab' }, scopes: [...SCOPES], ...rate },
      { id: 'k_bob', secret: keys.otherUser, owner: { user: 'u_bob' }, scopes: [...SCOPES], ...rate },
      { id: 'k_free', secret: keys.freePlan, owner: { user: 'u_free' }, scopes: [...SCOPES] },
    ],
  };
}

export interface FuzzSystem {
  sys: TestSystem;
  db: Database;
  keys: FuzzKeys;
  restUrl: string;
  mcpUrl: string;
  stop(): Promise<void>;
}

export async function startFuzzSystem(store: StoreName): Promise<FuzzSystem> {
  const keys = makeKeys();
  const sys = await startTestSystem({
    store,
    seed: fuzzSeed(keys),
    // No outside calls: the enrichment providers are off, so a run that starts finishes at once.
    env: { ORCID_API_URL: 'off', OPENALEX_API_URL: 'off', ENRICHMENT_HTTP_RETRIES: '0' },
  });
  if (!sys.db || !sys.mcpUrl) throw new Error('the fuzz system needs the store and the MCP surface in this process');
  await watchWrites(sys.db);
  return { sys, db: sys.db, keys, restUrl: sys.restUrl, mcpUrl: sys.mcpUrl, stop: () => sys.stop() };
}

/**
 * Tables a request can write. Usage counters and the keys' last use are left out (every authenticated request counts),
 * and so are the search corpus and the enrichment results, which only background work writes.
 */
const WATCHED = [
  'communities.memberships', 'communities.profiles', 'communities.consent_requests', 'communities.placeholder_tasks', 'communities.erasure_followups',
  'communities.index_followups',
  'communities.write_attestations', 'billing.ledger_entries', 'billing.wallets', 'billing.free_self_enrichments',
  'billing.delegation_charges', 'billing.delegation_consumption', 'edge.idempotency_records', 'search.search_jobs',
  'enrichment.runs', 'enrichment.run_items', 'enrichment.self_enrichment',
] as const;

/**
 * Counts every row written to a watched table, by table, with row triggers in a schema of the
 * suite's own: reading one small table after each request is cheap enough for thousands of cases,
 * and a row-level trigger fires only for rows a statement really wrote (a rolled-back write leaves
 * no count).
 */
export async function watchWrites(db: Database): Promise<void> {
  await db.exec(`
    CREATE SCHEMA IF NOT EXISTS fuzz_watch;
    CREATE TABLE IF NOT EXISTS fuzz_watch.writes (tbl text PRIMARY KEY, n bigint NOT NULL);
    CREATE OR REPLACE FUNCTION fuzz_watch.count_write() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      INSERT INTO fuzz_watch.writes (tbl, n) VALUES (TG_TABLE_SCHEMA || '.' || TG_TABLE_NAME, 1)
        ON CONFLICT (tbl) DO UPDATE SET n = fuzz_watch.writes.n + 1;
      RETURN NULL;
    END $$;
    ${WATCHED.map((t) => `CREATE OR REPLACE TRIGGER fuzz_watch AFTER INSERT OR UPDATE OR DELETE ON ${t} FOR EACH ROW EXECUTE FUNCTION fuzz_watch.count_write();`).join('\n')}
  `);
}

/** Rows written so far by table (write counts), and a digest of each watched table's content. */
export interface StoreSnapshot {
  writes: Record<string, string>;
  digests: Record<string, string>;
}

async function writeCounts(db: Database): Promise<Record<string, string>> {
  const rows = await db.query<{ tbl: string; n: string }>('SELECT tbl, n::text AS n FROM fuzz_watch.writes');
  return Object.fromEntries(rows.map((r) => [r.tbl, r.n]));
}

async function digests(db: Database, tables: readonly string[]): Promise<Record<string, string>> {
  if (tables.length === 0) return {};
  const columns = tables.map((t, i) => `(SELECT count(*) || ':' || coalesce(md5(string_agg(r::text, '|' ORDER BY r::text)), '') FROM ${t} r) AS d${i}`);
  const [row] = await db.query<Record<string, string>>(`SELECT ${columns.join(', ')}`);
  return Object.fromEntries(tables.map((t, i) => [t, row![`d${i}`]!]));
}

const changedCounts = (a: Record<string, string>, b: Record<string, string>) => WATCHED.filter((t) => a[t] !== b[t]);

/**
 * Waits until no background work is left (searches, enrichment runs, their charges) and no row is
 * written for a moment, then returns the snapshot: the baseline a refused request must leave as it is.
 */
export async function settledSnapshot(db: Database, timeoutMs = 20_000): Promise<StoreSnapshot> {
  const deadline = Date.now() + timeoutMs;
  let previous: Record<string, string> | undefined;
  for (;;) {
    const [open] = await db.query<{ n: number }>(
      `SELECT (SELECT count(*) FROM search.search_jobs WHERE status IN ('pending', 'running') OR (status = 'complete' AND charged_at IS NULL))
            + (SELECT count(*) FROM enrichment.runs WHERE status IN ('queued', 'running'))
            + (SELECT count(*) FROM enrichment.run_items WHERE status = 'pending' OR (status = 'succeeded' AND (NOT charged OR NOT indexed))) AS n`,
    );
    if (Number(open!.n) === 0) {
      const current = await writeCounts(db);
      if (previous && changedCounts(previous, current).length === 0) return { writes: current, digests: await digests(db, WATCHED) };
      previous = current;
    } else {
      previous = undefined;
    }
    if (Date.now() > deadline) throw new Error('background work did not settle');
    await new Promise((r) => setTimeout(r, 10));
  }
}

/**
 * Tables whose content differs from the baseline after a refused request. Only tables written
 * since the baseline are compared, once their writes have stopped: a claim taken and released by a
 * refusal (an idempotency claim, say) leaves the content as it was, and is not a stored row.
 */
export async function storedSince(db: Database, baseline: StoreSnapshot): Promise<string[]> {
  let current = await writeCounts(db);
  if (changedCounts(baseline.writes, current).length === 0) return [];
  for (let i = 0; i < 100; i++) {
    await new Promise((r) => setTimeout(r, 20));
    const next = await writeCounts(db);
    const still = changedCounts(current, next).length > 0;
    current = next;
    if (!still) break;
  }
  const touched = changedCounts(baseline.writes, current);
  const now = await digests(db, touched);
  const stored = touched.filter((t) => now[t] !== baseline.digests[t]);
  // Net nothing: later checks need not look at these writes again.
  for (const t of touched) if (!stored.includes(t)) baseline.writes[t] = current[t]!;
  return stored;
}
