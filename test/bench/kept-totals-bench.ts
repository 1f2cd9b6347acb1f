// The kept-totals benchmark (part of `npm run bench`; alone: `npx tsx test/bench/kept-totals-bench.ts`
// with DATABASE_URL set): reads that once summed rows on every request and now read a total kept
// beside them by the rows' own writes, each against the sum it replaced, measured in the same run on
// the same data (the baseline):
// - billing's read behind GET /v1/me — the payer's balance and what the key spent this month — for
//   keys that each made BENCH_SPEND_CHARGES charges this month, interleaved in the ledger as busy
//   keys' are (billing migration 005);
// - an enrichment run's counts, read by every poll, for a run of BENCH_RUN_ITEMS people among
//   smaller runs (enrichment migration 005).
import { performance } from 'node:perf_hooks';
import { createLedger } from '../../services/billing/ledger.repository.js';
import type { Database } from '../../services/kit/db/database.js';
import { migrateAll } from '../../services/kit/db/migrations.js';
import { openPostgres } from '../../services/kit/db/postgres-database.js';
import { createRunsRepository } from '../../services/enrichment/runs.repository.js';
import { freshPostgresDatabase } from '../helpers/stores.js';

const KEYS = 10;
const CHARGES = Number(process.env.BENCH_SPEND_CHARGES ?? 30_000);
const RUN_ITEMS = Number(process.env.BENCH_RUN_ITEMS ?? 50_000);
const READS = 300;

/** The read GET /v1/me made before the kept total: the month's debits of the key, summed. */
const LEDGER_SUM = `SELECT coalesce((SELECT balance FROM billing.wallets WHERE owner_type = $1 AND owner_id = $2), 0)::int8 AS balance,
                           coalesce((SELECT -sum(amount) FROM billing.ledger_entries
                                      WHERE credential_id = $3 AND amount < 0 AND created_at >= $4), 0)::int8 AS spent`;

/** The read a poll made before the kept counts: the run's items counted by status. */
const ITEMS_COUNT = `SELECT status, count(*)::int8 AS n, coalesce(sum(credits_charged), 0)::int8 AS credits
                       FROM enrichment.run_items WHERE run_id = $1 GROUP BY status`;

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** Milliseconds per read, READS reads of `read(i)` after a warm-up read of each of the first `distinct`. */
async function timeReads(distinct: number, read: (i: number) => Promise<unknown>): Promise<number[]> {
  for (let i = 0; i < distinct; i++) await read(i);
  const times: number[] = [];
  for (let i = 0; i < READS; i++) {
    const t0 = performance.now();
    await read(i % distinct);
    times.push(performance.now() - t0);
  }
  return times.sort((a, b) => a - b);
}

function row(name: string, t: number[], base: number[]): string {
  return `| ${name} | ${percentile(t, 50).toFixed(2)} | ${percentile(t, 95).toFixed(2)} | ${(percentile(base, 50) / percentile(t, 50)).toFixed(1)} |`;
}

async function spendRows(db: Database): Promise<string[]> {
  await db.query(`INSERT INTO billing.wallets (owner_type, owner_id, balance) SELECT 'user', 'u' || k, 0 FROM generate_series(0, ${KEYS - 1}) k`);
  // One charge of 1 credit per row, the keys' charges interleaved; the wallets end at their sums.
  await db.query(
    `INSERT INTO billing.ledger_entries (id, owner_type, owner_id, amount, reference, operation, rate, units, credential_id, balance_after)
     SELECT 'le_' || g, 'user', 'u' || (g % $1::int), -1, 'search:' || g, 'search', 1, 1, 'k' || (g % $1::int), -(g / $1::int + 1)
       FROM generate_series(0, $1::int * $2::int - 1) g`,
    [KEYS, CHARGES],
  );
  await db.query(`UPDATE billing.wallets SET balance = -$1::int8`, [CHARGES]);
  await db.query('ANALYZE billing.ledger_entries');
  const ledger = createLedger(db);
  const now = new Date();
  const monthStart = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
  const checked = (spent: number, k: number) => {
    if (spent !== CHARGES) throw new Error(`key ${k} spent ${spent}, not ${CHARGES}`);
  };
  const baseline = await timeReads(KEYS, async (k) => checked((await db.query<{ spent: number }>(LEDGER_SUM, ['user', `u${k}`, `k${k}`, monthStart]))[0]!.spent, k));
  const kept = await timeReads(KEYS, async (k) => checked((await ledger.balanceAndSpend({ type: 'user', id: `u${k}` }, `k${k}`)).spent, k));
  return [
    row(`GET /v1/me's balance and spend: the month's debits summed over the ledger (baseline; ${KEYS} keys × ${CHARGES.toLocaleString('en')} charges)`, baseline, baseline),
    row("GET /v1/me's balance and spend: the kept total (billing.credential_spend)", kept, baseline),
  ];
}

async function runCountRows(db: Database): Promise<string[]> {
  // The big run, then 2,000 runs of 5 people each, their items written as runs write them.
  await db.query(`INSERT INTO enrichment.runs (id, kind, community_id, credential_id, caller, depth)
                  SELECT 'run_' || g, 'community', 'c_bench', 'k_1', '{}', 'quick' FROM generate_series(0, 2000) g`);
  await db.query(
    `INSERT INTO enrichment.run_items (run_id, profile_id, status, credits_charged)
     SELECT 'run_0', 'p' || lpad(g::text, 7, '0'), CASE WHEN g % 10 = 0 THEN 'failed' ELSE 'succeeded' END, CASE WHEN g % 10 = 0 THEN 0 ELSE 1 END
       FROM generate_series(1, $1::int) g`,
    [RUN_ITEMS],
  );
  await db.query(`INSERT INTO enrichment.run_items (run_id, profile_id, status) SELECT 'run_' || r, 'p' || k, 'pending'
                    FROM generate_series(1, 2000) r, generate_series(1, 5) k`);
  await db.query('ANALYZE enrichment.run_items');
  const runs = createRunsRepository(db);
  const checked = (total: number) => {
    if (total !== RUN_ITEMS) throw new Error(`the run counts ${total} people, not ${RUN_ITEMS}`);
  };
  const baseline = await timeReads(1, async () => checked((await db.query<{ n: number }>(ITEMS_COUNT, ['run_0'])).reduce((s, r) => s + r.n, 0)));
  const kept = await timeReads(1, async () => checked((await runs.counts('run_0')).total));
  return [
    row(`an enrichment poll's counts: the run's items counted (baseline; ${RUN_ITEMS.toLocaleString('en')} people)`, baseline, baseline),
    row("an enrichment poll's counts: the kept counts (enrichment.run_counts)", kept, baseline),
  ];
}

export async function runKeptTotalsBench(): Promise<string> {
  const fresh = await freshPostgresDatabase();
  const db = openPostgres(fresh.url, { max: 2 });
  try {
    await migrateAll(db);
    const table = [
      '| read | p50 ms | p95 ms | speed vs baseline (p50) |',
      '|---|---|---|---|',
      ...(await spendRows(db)),
      ...(await runCountRows(db)),
    ].join('\n');
    return `## Kept totals: a key's month's spend, a run's counts (PostgreSQL)

Each read ${READS} times on one connection after a warm-up, against the sum it replaced (the baseline) on
the same data: ${KEYS} keys with ${CHARGES.toLocaleString('en')} charges each this month, interleaved in one ledger; one run of
${RUN_ITEMS.toLocaleString('en')} people beside 2,000 runs of 5.

${table}
`;
  } finally {
    await db.close();
    await fresh.drop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(await runKeptTotalsBench());
  process.exit(0);
}
