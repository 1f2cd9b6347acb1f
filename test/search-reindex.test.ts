// The operator's full search re-index (communities ReindexSearch, `npm run admin -- search reindex`):
// documents taken out of the search corpus behind the communities service's back come back, the
// counts are those of the seed (one document per membership, one per public claimed profile), and
// only operators may start it. It is a mark and sweep: documents of people who are not members (or
// whose profile is not public and claimed) are removed at the end, while enrichment text the
// re-index does not send survives. Runs on every store (stray documents are written and erased over
// the search service's operator RPCs, not through the database); on PostgreSQL, a membership erased
// and a profile made private directly in the communities tables are swept too, and a batch the
// search service refuses fails the run with nothing swept.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Document } from '../proto/gen/expertnet/search/v1/search_service.js';
import type { SeedInput } from '../deploy/admin/seed-schema.js';
import { callAs } from '../services/kit/grpc/client.js';
import { readRemoteError } from '../services/kit/grpc/errors.js';
import { bearer, request, type JsonResponse } from './helpers/http.js';
import { liveKey } from './helpers/keys.js';
import { storeNames } from './helpers/stores.js';
import { startTestSystem, type TestSystem } from './helpers/test-system.js';

const repo = fileURLToPath(new URL('..', import.meta.url));
const tsxCli = join(repo, 'node_modules/tsx/dist/cli.mjs');
const adminCli = join(repo, 'deploy/admin/cli.ts');

const key = liveKey();
const seed: SeedInput = {
  users: ['u_ana', 'u_pub', 'u_priv'].map((id) => ({ id, email: `${id}@example.org`, name: id, plan: 'paid' as const })),
  organizations: [{ id: 'o_lab', name: 'Lab' }],
  communities: [
    { id: 'c_bio', name: 'Biology', owner: { organization: 'o_lab' } },
    { id: 'c_chem', name: 'Chemistry', owner: { organization: 'o_lab' } },
  ],
  profiles: [
    { id: 'p_ana', user: 'u_ana', name: 'Ana Searcher', headline: 'Program officer' },
    { id: 'p_eco', name: 'Elin Ecologist', headline: 'Freshwater pond ecologist', organization: 'Pond Institute' },
    { id: 'p_chemist', name: 'Carl Chemist', headline: 'Organic chemistry and catalysis' },
    { id: 'p_public', user: 'u_pub', public: true, name: 'Paula Public', headline: 'Marine and pond ecologist' },
    { id: 'p_private', user: 'u_priv', public: false, name: 'Priya Private', headline: 'Pond ecologist, private profile' },
    { id: 'p_unclaimed', public: true, name: 'Ulla Unclaimed', headline: 'Pond ecologist, unclaimed' },
  ],
  memberships: [
    { community: 'c_bio', profile: 'p_ana' },
    { community: 'c_chem', profile: 'p_ana' },
    { community: 'c_bio', profile: 'p_eco' },
    { community: 'c_chem', profile: 'p_eco' },
    { community: 'c_chem', profile: 'p_chemist' },
  ],
  wallets: [{ owner: { user: 'u_ana' }, balance: 1000 }],
  keys: [{ id: 'k_ana', secret: key, owner: { user: 'u_ana' }, scopes: ['search:read'], requested_rate: 6000 }],
};

// 5 memberships; one public claimed profile (p_public: p_private is not public, p_unclaimed has no user).
const expected = { profiles: 6, membership_documents: 5, public_documents: 1 };

describe.each(storeNames())('search reindex on %s', (store) => {
  let sys: TestSystem;

  beforeAll(async () => {
    sys = await startTestSystem({ store, seed });
  });
  afterAll(async () => sys?.stop());

  const operator = () => callAs(sys.signer, { kind: 'operator', actor: 'reindex-test' }, undefined, 10_000);
  const search = (body: unknown) => request(sys.restUrl, 'POST', '/v1/search', { headers: bearer(key), body });
  const ids = (res: JsonResponse) => (res.body.matches as Array<{ profile_id: string }>).map((m) => m.profile_id);

  /** A document as the communities service would write it (enrichment text empty: keep the held one). */
  const doc = (communityId: string, profileId: string, name: string, headline: string, enrichmentText = ''): Document => ({
    communityId,
    profileId,
    userId: '',
    name,
    headline,
    bio: '',
    organization: '',
    location: '',
    avatarUrl: '',
    enrichmentText,
  });

  /** Documents communities never asked for: Carl in Biology (he is a chemist only), Priya in the public corpus. */
  async function writeStray(): Promise<void> {
    await sys.clients.search.indexDocuments(
      {
        documents: [
          doc('c_bio', 'p_chemist', 'Carl Chemist', 'Organic chemistry and catalysis'),
          doc('', 'p_private', 'Priya Private', 'Pond ecologist, private profile'),
        ],
      },
      await operator(),
    );
  }

  async function eraseAll(): Promise<void> {
    const call = await operator();
    for (const m of seed.memberships!) await sys.clients.search.eraseDocuments({ communityId: m.community, profileId: m.profile }, call);
    await sys.clients.search.removePublicDocument({ profileId: 'p_public' }, call);
  }

  it('brings back documents the corpus lost, with counts of the seed', async () => {
    const before = await search({ query: 'pond ecologist', scope: 'all', limit: 50 });
    expect(before.status, JSON.stringify(before.body)).toBe(200);
    expect(ids(before).sort()).toEqual(['p_eco', 'p_public']);

    await eraseAll();
    const gone = await search({ query: 'pond ecologist', scope: 'all', limit: 50 });
    expect(gone.status, JSON.stringify(gone.body)).toBe(200);
    expect(ids(gone)).toEqual([]);

    const counts = await sys.clients.communities.reindexSearch({ batchSize: 2 }, await operator());
    expect(counts).toEqual({
      profiles: expected.profiles,
      membershipDocuments: expected.membership_documents,
      publicDocuments: expected.public_documents,
      batches: 3, // 6 profiles, 2 a batch, each batch with at least one document
      removed: 0,
    });

    const back = await search({ query: 'pond ecologist', scope: 'all', limit: 50 });
    expect(back.status, JSON.stringify(back.body)).toBe(200);
    expect(ids(back).sort()).toEqual(['p_eco', 'p_public']);
    const chem = await search({ query: 'organic chemistry', scope: 'community', community_id: 'c_chem' });
    expect(chem.status, JSON.stringify(chem.body)).toBe(200);
    expect(ids(chem)).toContain('p_chemist');
    // Private and unclaimed profiles stay out of the public corpus.
    const pub = await search({ query: 'pond ecologist', scope: 'public', limit: 50 });
    expect(ids(pub)).toEqual(['p_public']);
  });

  it('removes documents of people who are not members or not public, and keeps enrichment text', async () => {
    // What an enrichment run of Chemistry gave Elin: the re-index sends no text, so it must survive.
    await sys.clients.search.indexDocuments(
      { documents: [doc('c_chem', 'p_eco', 'Elin Ecologist', 'Freshwater pond ecologist', 'Publications on zebrafish genetics.')] },
      await operator(),
    );
    await writeStray();
    const strayBio = await search({ query: 'organic chemistry', scope: 'community', community_id: 'c_bio' });
    expect(ids(strayBio)).toEqual(['p_chemist']);
    expect(ids(await search({ query: 'pond ecologist', scope: 'public', limit: 50 })).sort()).toEqual(['p_private', 'p_public']);

    const counts = await sys.clients.communities.reindexSearch({ batchSize: 500 }, await operator());
    expect(counts).toEqual({
      profiles: expected.profiles,
      membershipDocuments: expected.membership_documents,
      publicDocuments: expected.public_documents,
      batches: 1,
      removed: 2,
    });

    expect(ids(await search({ query: 'organic chemistry', scope: 'community', community_id: 'c_bio' }))).toEqual([]);
    expect(ids(await search({ query: 'organic chemistry', scope: 'community', community_id: 'c_chem' }))).toContain('p_chemist');
    expect(ids(await search({ query: 'pond ecologist', scope: 'public', limit: 50 }))).toEqual(['p_public']);
    const enriched = await search({ query: 'zebrafish', scope: 'community', community_id: 'c_chem' });
    expect(ids(enriched)).toEqual(['p_eco']);

    // Nothing left to sweep: a second run removes nothing.
    expect((await sys.clients.communities.reindexSearch({ batchSize: 500 }, await operator())).removed).toBe(0);
  });

  it('refuses a batch of a run that is unknown or already pruned', async () => {
    const call = await operator();
    const { run } = await sys.clients.search.beginReindex({}, call);
    // A full re-index (a newer run) writes every document after this run began: nothing is below it.
    await sys.clients.communities.reindexSearch({ batchSize: 500 }, call);
    expect(await sys.clients.search.pruneDocuments({ run }, call)).toEqual({ removed: 0 });
    // Pruning again answers the same and sweeps nothing more.
    expect(await sys.clients.search.pruneDocuments({ run }, call)).toEqual({ removed: 0 });
    const late = await sys.clients.search
      .indexDocuments({ documents: [doc('c_bio', 'p_eco', 'Elin Ecologist', 'Freshwater pond ecologist')], reindexRun: run }, call)
      .catch((e: unknown) => e);
    expect(readRemoteError(late)?.code).toBe('conflict');
    const unknown = await sys.clients.search
      .indexDocuments({ documents: [doc('c_bio', 'p_eco', 'Elin Ecologist', 'Freshwater pond ecologist')], reindexRun: run + 1000 }, call)
      .catch((e: unknown) => e);
    expect(readRemoteError(unknown)?.code).toBe('not_found');
    expect(readRemoteError(await sys.clients.search.pruneDocuments({ run: run + 1000 }, call).catch((e: unknown) => e))?.code).toBe('not_found');
    // Callers may not touch the corpus.
    const asCaller = await callAs(sys.signer, { kind: 'edge' }, undefined, 10_000);
    expect(readRemoteError(await sys.clients.search.beginReindex({}, asCaller).catch((e: unknown) => e))).toBeTruthy();
  });

  it('is for operators only, and refuses a batch over 5000', async () => {
    const asService = await callAs(sys.signer, { kind: 'service', service: 'search' }, undefined, 10_000);
    const refused = await sys.clients.communities.reindexSearch({ batchSize: 0 }, asService).catch((e: unknown) => e);
    expect(readRemoteError(refused)).toBeTruthy();
    const tooBig = await sys.clients.communities.reindexSearch({ batchSize: 5001 }, await operator()).catch((e: unknown) => e);
    expect(readRemoteError(tooBig)?.code).toBe('invalid_request');
  });

  it('npm run admin -- search reindex prints the counts, and its progress on stderr', async () => {
    await eraseAll();
    await writeStray();
    const out = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      execFile(
        process.execPath,
        [tsxCli, adminCli, 'search', 'reindex', '--batch', '2', '--progress-every', '5', '--json'],
        { cwd: repo, env: { ...process.env, ...sys.env, LOG_LEVEL: 'silent', USER: 'ops' }, timeout: 150_000 },
        (error, stdout, stderr) => resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
      );
    });
    expect(out.code, out.stderr).toBe(0);
    // 3 batches of two profiles, each with documents.
    expect(JSON.parse(out.stdout)).toEqual({ ...expected, batches: 3, removed: 2 });
    // Progress lines while it ran (as many as polls saw it move), then one for the run as it ended:
    // every document the run indexed was erased before, so each one was embedded anew.
    const lines = out.stderr.trim().split('\n');
    const done = /^search reindex run \d+: (\d+) \/ 6 documents \(([\d.]+)%\), (\d+) embedded by glove-6b-100d-sif/;
    for (const line of lines) expect(line).toMatch(done);
    const counts = lines.map((l) => Number(done.exec(l)![1]));
    expect(counts).toEqual([...counts].sort((a, b) => a - b));
    expect(lines[lines.length - 1]).toMatch(/^search reindex run \d+: 6 \/ 6 documents \(100\.0%\), 6 embedded by glove-6b-100d-sif, [\d.]+ documents\/s, done, 2 removed$/);
    const back = await search({ query: 'pond ecologist', scope: 'all', limit: 50 });
    expect(ids(back).sort()).toEqual(['p_eco', 'p_public']);
    expect(ids(await search({ query: 'organic chemistry', scope: 'community', community_id: 'c_bio' }))).toEqual([]);
  }, 180_000);

  if (store === 'postgres') {
    it("re-embeds documents holding the hashing embedder's vectors with the default model, and reports it", async () => {
      await sys.clients.communities.reindexSearch({ batchSize: 500 }, await operator());
      // As an upgrade finds them: every document embedded by the hashing embedder (512 dimensions).
      const client = new pg.Client({ connectionString: sys.env.DATABASE_URL });
      await client.connect();
      try {
        await client.query(`UPDATE search.documents SET embedding = array_fill(0.04::real, ARRAY[512]), embedding_model = 'offline-hash-512'`);
        const models = async () =>
          (await client.query<{ m: string; n: number; c: number }>(
            'SELECT embedding_model AS m, cardinality(embedding)::int AS n, count(*)::int AS c FROM search.documents GROUP BY 1, 2',
          )).rows;
        expect(await models()).toEqual([{ m: 'offline-hash-512', n: 512, c: 6 }]);

        await sys.clients.communities.reindexSearch({ batchSize: 2 }, await operator());
        expect(await models()).toEqual([{ m: 'glove-6b-100d-sif', n: 100, c: 6 }]);
        const progress = await sys.clients.search.getReindexRun({ run: 0 }, await operator());
        expect(progress).toMatchObject({ expectedDocuments: 6, indexedDocuments: 6, embeddedDocuments: 6, embedder: 'glove-6b-100d-sif', pruned: true, removed: 0 });
        // Nothing left to re-embed: the next run embeds none.
        await sys.clients.communities.reindexSearch({ batchSize: 500 }, await operator());
        expect(await sys.clients.search.getReindexRun({ run: 0 }, await operator())).toMatchObject({ indexedDocuments: 6, embeddedDocuments: 0 });
      } finally {
        await client.end();
      }
    });

    it('fails when the search service refuses a batch while the next is in flight, and sweeps nothing', async () => {
      const client = new pg.Client({ connectionString: sys.env.DATABASE_URL });
      await client.connect();
      try {
        await writeStray();
        // A member whose document search refuses (a blank name), in the middle of the walk: batches
        // of two profiles in id order put it in the second of four.
        await client.query(`INSERT INTO communities.profiles (id, name) VALUES ('p_eco2', '  ')`);
        await client.query(`INSERT INTO communities.memberships (community_id, profile_id, role, source_identifier) VALUES ('c_bio', 'p_eco2', 'member', 'p_eco2')`);
        const failed = await sys.clients.communities.reindexSearch({ batchSize: 2 }, await operator()).catch((e: unknown) => e);
        expect(readRemoteError(failed)?.code).toBe('invalid_request');
        // Not swept: the strays are still found.
        expect(ids(await search({ query: 'organic chemistry', scope: 'community', community_id: 'c_bio' }))).toContain('p_chemist');
        expect(ids(await search({ query: 'pond ecologist', scope: 'public', limit: 50 }))).toContain('p_private');
      } finally {
        await client.query(`DELETE FROM communities.profiles WHERE id = 'p_eco2'`);
        await client.end();
      }
      // Without it, the next run succeeds and sweeps the strays.
      expect((await sys.clients.communities.reindexSearch({ batchSize: 2 }, await operator())).removed).toBe(2);
    });

    it('sweeps a membership erased and a profile made private directly in the communities tables', async () => {
      // Behind the communities service's back: no EraseDocuments, no RemovePublicDocument.
      const client = new pg.Client({ connectionString: sys.env.DATABASE_URL });
      await client.connect();
      try {
        await client.query(`DELETE FROM communities.memberships WHERE community_id = 'c_chem' AND profile_id = 'p_chemist'`);
        await client.query(`UPDATE communities.profiles SET public = false WHERE id = 'p_public'`);
        expect(ids(await search({ query: 'organic chemistry', scope: 'community', community_id: 'c_chem' }))).toContain('p_chemist');
        expect(ids(await search({ query: 'pond ecologist', scope: 'public', limit: 50 }))).toEqual(['p_public']);

        const counts = await sys.clients.communities.reindexSearch({ batchSize: 500 }, await operator());
        expect(counts).toEqual({ profiles: 6, membershipDocuments: 4, publicDocuments: 0, batches: 1, removed: 2 });
        expect(ids(await search({ query: 'organic chemistry', scope: 'community', community_id: 'c_chem' }))).not.toContain('p_chemist');
        expect(ids(await search({ query: 'pond ecologist', scope: 'public', limit: 50 }))).toEqual([]);
      } finally {
        await client.end();
      }
    });
  }
});
