// The idempotency store against the real stores (PGlite always; PostgreSQL with DATABASE_URL).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestDatabase, storeNames } from '../../../test/helpers/stores.js';
import type { Database } from '../../../services/kit/db/database.js';
import { IdempotencyStore, type Claim, type RecordScope } from './store.js';

let n = 0;
const scope = (over: Partial<RecordScope> = {}): RecordScope => ({
  credentialKind: 'api_key',
  credentialId: 'key_store',
  route: 'POST /v1/communities/c_1/members',
  key: `k-${++n}`,
  ...over,
});

describe.each(storeNames())('idempotency store on %s', (storeName) => {
  let db: Database;
  let close: () => Promise<void>;
  let store: IdempotencyStore;
  beforeAll(async () => {
    ({ db, close } = await openTestDatabase(storeName));
    store = new IdempotencyStore(db);
  });
  afterAll(async () => close());

  const claimOf = async (s: RecordScope, fp = 'fp'): Promise<Claim> => {
    const result = await store.claim(s, fp);
    if (result.kind !== 'claimed') throw new Error(`expected a claim, got ${result.kind}`);
    return result.claim;
  };
  const age = (s: RecordScope, column: 'lease_until' | 'expires_at') =>
    db.query(
      `UPDATE edge.idempotency_records SET ${column} = now() - interval '1 second'
        WHERE credential_kind = $1 AND credential_id = $2 AND route = $3 AND idempotency_key = $4`,
      [s.credentialKind, s.credentialId, s.route, s.key],
    );

  it('is migrated into the edge schema (beside the authorization server state)', async () => {
    const rows = await db.query<{ table_name: string }>(
      `SELECT table_name FROM information_schema.tables WHERE table_schema = 'edge' ORDER BY table_name`,
    );
    expect(rows.map((r) => r.table_name)).toEqual(['idempotency_records', 'oauth_state', 'schema_migrations']);
  });

  it('claims a free key once; a second claim sees it in flight', async () => {
    const s = scope();
    await claimOf(s);
    expect(await store.claim(s, 'fp')).toMatchObject({ kind: 'in_flight' });
    expect(await store.claim(s, 'other')).toMatchObject({ kind: 'in_flight' });
  });

  it('replays a stored response byte for byte, and refuses another fingerprint', async () => {
    const s = scope();
    const claim = await claimOf(s);
    const body = Buffer.from('{"ok":true,"name":"Zoë"}\n', 'utf8');
    const headers = { 'content-type': 'application/json; charset=utf-8', location: '/v1/x', 'set-cookie': ['a=1', 'b=2'] };
    expect(await store.complete(claim, { statusCode: 201, headers, body })).toBe(true);
    const replay = await store.claim(s, 'fp');
    expect(replay).toEqual({ kind: 'replay', response: { statusCode: 201, headers, body } });
    expect(await store.claim(s, 'other')).toEqual({ kind: 'mismatch' });
  });

  it('frees a released key for the next request', async () => {
    const s = scope();
    await store.release(await claimOf(s));
    await claimOf(s, 'another body');
  });

  it('scopes keys to the credential (kind and id) and the route', async () => {
    const s = scope();
    await claimOf(s);
    await claimOf({ ...s, credentialKind: 'oauth' });
    await claimOf({ ...s, credentialId: 'key_other' });
    await claimOf({ ...s, route: 'POST /v1/communities/c_2/members' });
  });

  it('lets a claim whose lease ran out be taken over; the old holder can no longer finish it', async () => {
    const s = scope();
    const stale = await claimOf(s);
    await age(s, 'lease_until');
    const fresh = await claimOf(s, 'fp2');
    expect(await store.renew(stale)).toBe(false);
    expect(await store.complete(stale, { statusCode: 200, headers: {}, body: Buffer.from('x') })).toBe(false);
    await store.release(stale); // no effect on the new claim
    expect(await store.claim(s, 'fp2')).toMatchObject({ kind: 'in_flight' });
    expect(await store.renew(fresh)).toBe(true);
  });

  it('renewing keeps a claim alive', async () => {
    const s = scope();
    const claim = await claimOf(s);
    await age(s, 'lease_until');
    expect(await store.renew(claim)).toBe(true);
    expect(await store.claim(s, 'fp')).toMatchObject({ kind: 'in_flight' });
  });

  it('ignores and replaces an expired record, and purges expired ones', async () => {
    const s = scope();
    await store.complete(await claimOf(s), { statusCode: 200, headers: {}, body: Buffer.from('old') });
    await age(s, 'expires_at');
    await claimOf(s, 'new body'); // replaced although the body differs
    const gone = scope();
    await store.complete(await claimOf(gone), { statusCode: 200, headers: {}, body: Buffer.alloc(0) });
    await age(gone, 'expires_at');
    expect(await store.purgeExpired()).toBeGreaterThanOrEqual(1);
    const left = await db.query(`SELECT 1 FROM edge.idempotency_records WHERE idempotency_key = $1`, [gone.key]);
    expect(left).toEqual([]);
    expect(await store.claim(s, 'new body')).toMatchObject({ kind: 'in_flight' });
  });

  it('stores the record for 48 hours', async () => {
    const s = scope();
    await store.complete(await claimOf(s), { statusCode: 200, headers: {}, body: Buffer.from('{}') });
    const [row] = await db.query<{ hours: number }>(
      `SELECT round(extract(epoch FROM expires_at - completed_at) / 3600)::integer AS hours
         FROM edge.idempotency_records WHERE idempotency_key = $1`,
      [s.key],
    );
    expect(row?.hours).toBe(48);
  });

  it('lets exactly one of many concurrent claims through', async () => {
    const s = scope();
    const results = await Promise.all(Array.from({ length: 20 }, () => store.claim(s, 'fp')));
    expect(results.filter((r) => r.kind === 'claimed')).toHaveLength(1);
    expect(results.filter((r) => r.kind === 'in_flight')).toHaveLength(19);
  });
});
