// The authorization server's storage adapter on both stores: what the provider upserts is found by
// id, uid and user code until it expires; a consumed row comes back marked consumed; destroying
// removes one row and revoking a grant removes every row of it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestDatabase, storeNames } from '../../test/helpers/stores.js';
import type { Database } from '../../services/kit/db/database.js';
import { oauthStateAdapter } from './oauth-state.js';

describe.each(storeNames())('the authorization server state on %s', (store) => {
  let opened: { db: Database; close(): Promise<void> };
  beforeAll(async () => {
    opened = await openTestDatabase(store);
  });
  afterAll(async () => opened?.close());

  it('finds what was stored by id, uid and user code, and nothing once expired', async () => {
    const Adapter = oauthStateAdapter(opened.db);
    const interactions = new Adapter('Interaction');
    await interactions.upsert('i1', { uid: 'u1', userCode: 'ABCD', kind: 'Interaction' }, 60);
    expect(await interactions.find('i1')).toMatchObject({ uid: 'u1', kind: 'Interaction' });
    expect(await interactions.findByUid('u1')).toMatchObject({ uid: 'u1' });
    expect(await interactions.findByUserCode('ABCD')).toMatchObject({ userCode: 'ABCD' });
    expect(await new Adapter('Session').find('i1')).toBeUndefined();
    await interactions.upsert('i2', { kind: 'Interaction' }, 1);
    await new Promise((r) => setTimeout(r, 1500));
    expect(await interactions.find('i2')).toBeUndefined();
  });

  it('marks a consumed code consumed, destroys one row, and revokes every row of a grant', async () => {
    const Adapter = oauthStateAdapter(opened.db);
    const codes = new Adapter('AuthorizationCode');
    const refresh = new Adapter('RefreshToken');
    const grants = new Adapter('Grant');
    await grants.upsert('grant_1', { accountId: 'u_ada', clientId: 'c' }, 3600);
    await codes.upsert('code1', { grantId: 'grant_1' }, 60);
    await refresh.upsert('rt1', { grantId: 'grant_1' }, 3600);
    await refresh.upsert('rt2', { grantId: 'grant_2' }, 3600);
    await codes.consume('code1');
    expect((await codes.find('code1'))?.consumed).toEqual(expect.any(Number));
    await refresh.destroy('rt2');
    expect(await refresh.find('rt2')).toBeUndefined();
    await refresh.revokeByGrantId('grant_1');
    expect([await codes.find('code1'), await refresh.find('rt1'), await grants.find('grant_1')]).toEqual([undefined, undefined, undefined]);
  });
});
