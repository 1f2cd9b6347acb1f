// The spend benchmark (part of `npm run bench`; alone: `npx tsx test/bench/spend-bench.ts` with
// DATABASE_URL set): billing's read behind GET /v1/me — the payer's balance and what the key spent
// this month — for keys that each made BENCH_SPEND_CHARGES charges this month, interleaved in the
// ledger as busy keys' are. The baseline, measured in the same run on the same data, is the sum of
// the key's debits over the ledger that the kept total (migration 005) replaced.
import { performance } from 'node:perf_hooks';
import { createLedger } from '../../services/billing/ledger.repository.js';
import { migrateAll } from '../../services/kit/db/migrations.js';
import { openPostgres } from '../../services/kit/db/postgres-database.js';
import { freshPostgresDatabase } from '../helpers/stores.js';

const KEYS = 10;
const CHARGES = Number(process.env.BENCH_SPEND_CHARGES ?? 30_000);
const READS = 300;

/** The read GET /v1/me made before the kept total: the month's debits of the key, summed. */
const LEDGER_SUM = `SELECT coalesce((SELECT balance FROM billing.wallets WHERE owner_type = $1 AND owner_id = $2), 0)::int8 AS balance,
                           coalesce((SELECT -sum(amount) FROM billing.ledger_entries
                                      WHERE credential_id = $3 AND amount < 0 AND created_at >= $4), 0)::int8 AS spent`;

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** Milliseconds per read, READS reads over the keys in turn. */
async function timeReads(read: (key: number) => Promise<{ spent: number }>): Promise<number[]> {
  for (let k = 0; k < KEYS; k++) await read(k); // warm-up: plans and pages
  const times: number[] = [];
  for (let i = 0; i < READS; i++) {
    const t0 = performance.now();
    const { spent } = await read(i % KEYS);
    times.push(performance.now() - t0);
    if (spent !== CHARGES) throw new Error(`key ${i % KEYS} spent ${spent}, not ${CHARGES}`);
  }
  return times.sort((a, b) => a - b);
}

export async function runSpendBench(): Promise<string> {
  const fresh = await freshPostgresDatabase();
  const db = openPostgres(fresh.url, { max: 2 });
  try {
    await migrateAll(db);
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
    const baseline = await timeReads(async (k) => (await db.query<{ spent: number }>(LEDGER_SUM, ['user', `u${k}`, `k${k}`, monthStart]))[0]!);
    const kept = await timeReads((k) => ledger.balanceAndSpend({ type: 'user', id: `u${k}` }, `k${k}`));
    const row = (name: string, t: number[], base: number[]) =>
      `| ${name} | ${percentile(t, 50).toFixed(2)} | ${percentile(t, 95).toFixed(2)} | ${(percentile(base, 50) / percentile(t, 50)).toFixed(1)} |`;
    const table = [
      '| read | p50 ms | p95 ms | speed vs baseline (p50) |',
      '|---|---|---|---|',
      row('sum of the month\'s debits over the ledger (baseline)', baseline, baseline),
      row('the kept total (billing.credential_spend)', kept, baseline),
    ].join('\n');
    return `## The balance and month's spend behind GET /v1/me (PostgreSQL)

${KEYS} keys, each with ${CHARGES.toLocaleString('en')} charges this month in one ledger of ${(KEYS * CHARGES).toLocaleString('en')} entries
(interleaved, as busy keys' are); ${READS} reads over the keys in turn, one connection, after a read of each.

${table}
`;
  } finally {
    await db.close();
    await fresh.drop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(await runSpendBench());
  process.exit(0);
}
