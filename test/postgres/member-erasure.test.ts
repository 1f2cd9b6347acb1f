// The erasure saga across processes: with the enrichment process gone, an erasure fails part-way
// (503) after erasing the search documents, leaving the enrichment data and — removed last — the
// membership in place; once enrichment is back, the retry completes the erasure. And what a crash
// right after the membership's removal leaves (the second erase owed, late-written data) is
// finished by the communities process when it starts again, with no retry by the client.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchTopology, type Topology } from '../../deploy/local/launch.js';
import { bearer, request, type JsonResponse } from '../helpers/http.js';
import { liveKey } from '../helpers/keys.js';
import { redisTestPrefix } from '../helpers/redis-prefix.js';
import { freshPostgresDatabase, type FreshDatabase } from '../helpers/stores.js';

const secret = liveKey();
// Rate-limit buckets live in the shared Redis: a fresh key id per run keeps runs apart.
const keyId = `k_erasure_${Date.now().toString(36)}`;

describe('erasure interrupted between its steps (multi-process)', () => {
  // Rate-limit keys under a prefix of this run's own, deleted afterwards.
  const redisPrefix = redisTestPrefix();
  let db: FreshDatabase;
  let topology: Topology;
  let sql: pg.Client;
  beforeAll(async () => {
    db = await freshPostgresDatabase({ migrated: true });
    const seedFile = join(mkdtempSync(join(tmpdir(), 'en-erase-')), 'seed.json');
    writeFileSync(seedFile, JSON.stringify({
      users: [{ id: 'u_manager', email: 'manager@example.org', name: 'Manager' }],
      organizations: [{ id: 'o_lab', name: 'Lab', members: [{ user: 'u_manager', role: 'admin' }] }],
      communities: [{ id: 'c_bio', name: 'Biology', owner: { organization: 'o_lab' }, api_writes: true }],
      keys: [{ id: keyId, secret, owner: { user: 'u_manager' }, scopes: ['member:write'], requested_rate: 600 }],
    }));
    const env = { DATABASE_URL: db.url, REDIS_URL: process.env.REDIS_URL!, ...redisPrefix.env, SEED_FILE: seedFile, LOG_LEVEL: 'warn' };
    topology = await launchTopology(env, { readyTimeoutMs: 90_000 });
    sql = new pg.Client({ connectionString: db.url });
    await sql.connect();
  }, 180_000);
  afterAll(async () => {
    await sql?.end();
    await topology?.stop();
    await db?.drop();
    await redisPrefix.cleanup();
  });

  const rows = async (query: string, params: unknown[]) => (await sql.query(query, params)).rows;

  it('fails with 503 after the search step, keeps the membership, and completes on retry', async () => {
    const added = await request(topology.restUrl, 'POST', '/v1/communities/c_bio/members', {
      headers: bearer(secret),
      body: { members: [{ email: 'saga@example.org', name: 'Saga Person' }] },
    });
    expect(added.status).toBe(200);
    const id: string = added.body.results[0].profile_id;
    const [{ placeholder_user_id: accountId }] = await rows('SELECT placeholder_user_id FROM communities.profiles WHERE id = $1', [id]);
    expect(accountId).toBeTruthy();
    // Adding the person indexed it already; the row is made certain either way.
    await sql.query(
      `INSERT INTO search.documents (community_id, profile_id, name) VALUES ('c_bio', $1, 'Saga Person') ON CONFLICT (community_id, profile_id) DO NOTHING`,
      [id],
    );
    await sql.query(`INSERT INTO enrichment.member_enrichment (community_id, profile_id, depth, data) VALUES ('c_bio', $1, 'deep', '{}')`, [id]);

    await topology.stopRole('enrichment');
    const failed = await request(topology.restUrl, 'DELETE', `/v1/communities/c_bio/members/${id}`, { headers: bearer(secret) });
    expect(failed.status).toBe(503);
    expect(failed.body.error).toMatchObject({ code: 'unavailable', request_id: failed.headers.get('x-request-id') });
    expect(failed.headers.get('retry-after')).toBe('1');
    // Step 1 done, step 2 not, the membership (removed last) still there with its source identifier.
    expect(await rows('SELECT 1 FROM search.documents WHERE profile_id = $1', [id])).toHaveLength(0);
    expect(await rows('SELECT 1 FROM enrichment.member_enrichment WHERE profile_id = $1', [id])).toHaveLength(1);
    expect(await rows('SELECT source_identifier FROM communities.memberships WHERE profile_id = $1', [id])).toHaveLength(1);

    await topology.startRole('enrichment');
    // The communities process reconnects to the restarted enrichment process within its backoff.
    let retried: JsonResponse | undefined;
    for (const deadline = Date.now() + 20_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 250))) {
      retried = await request(topology.restUrl, 'DELETE', `/v1/communities/c_bio/members/${id}`, { headers: bearer(secret) });
      if (retried.status !== 503) break;
    }
    expect(retried!.status).toBe(200);
    expect(retried!.body).toEqual({ community_id: 'c_bio', profile_id: id, erased: true, auth_account_deleted: true });
    expect(await rows('SELECT 1 FROM enrichment.member_enrichment WHERE profile_id = $1', [id])).toHaveLength(0);
    expect(await rows('SELECT 1 FROM communities.memberships WHERE profile_id = $1', [id])).toHaveLength(0);
    expect(await rows('SELECT 1 FROM communities.profiles WHERE id = $1', [id])).toHaveLength(0);
    expect(await rows('SELECT 1 FROM identity.users WHERE id = $1', [accountId])).toHaveLength(0);
    expect(await rows('SELECT 1 FROM communities.placeholder_tasks WHERE profile_id = $1', [id])).toHaveLength(0);

    const again = await request(topology.restUrl, 'DELETE', `/v1/communities/c_bio/members/${id}`, { headers: bearer(secret) });
    expect(again.status).toBe(404);
  });

  it('a crash after the membership is removed: the restarted communities process finishes the second erase', async () => {
    const added = await request(topology.restUrl, 'POST', '/v1/communities/c_bio/members', {
      headers: bearer(secret),
      body: { members: [{ email: 'crash.after@example.org', name: 'Crash After' }] },
    });
    expect(added.status).toBe(200);
    const id: string = added.body.results[0].profile_id;
    const erased = await request(topology.restUrl, 'DELETE', `/v1/communities/c_bio/members/${id}`, { headers: bearer(secret) });
    expect(erased.status).toBe(200);
    expect(await rows('SELECT 1 FROM communities.erasure_followups WHERE profile_id = $1', [id])).toHaveLength(0);

    // The state a kill -9 between the membership's removal and the second erase leaves: the
    // membership gone, its follow-up recorded (past the sweeper's grace), and what an index call and
    // a run wrote while the erasure ran.
    await topology.stopRole('communities');
    await sql.query(`INSERT INTO communities.erasure_followups (community_id, profile_id, created_at) VALUES ('c_bio', $1, now() - interval '1 minute')`, [id]);
    await sql.query(`INSERT INTO search.documents (community_id, profile_id, name) VALUES ('c_bio', $1, 'Crash After')`, [id]);
    await sql.query(`INSERT INTO enrichment.member_enrichment (community_id, profile_id, depth, data) VALUES ('c_bio', $1, 'quick', '{}')`, [id]);
    await topology.startRole('communities');

    // Well inside the sweeper's 30 s interval: only its pass at start-up can finish this in time.
    for (const deadline = Date.now() + 15_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 250))) {
      if ((await rows('SELECT 1 FROM communities.erasure_followups WHERE profile_id = $1', [id])).length === 0) break;
    }
    expect(await rows('SELECT 1 FROM communities.erasure_followups WHERE profile_id = $1', [id])).toHaveLength(0);
    expect(await rows('SELECT 1 FROM search.documents WHERE profile_id = $1', [id])).toHaveLength(0);
    expect(await rows('SELECT 1 FROM enrichment.member_enrichment WHERE profile_id = $1', [id])).toHaveLength(0);
  });
});
