// CREDIT_ENFORCEMENT=on: billable work is refused before it starts when the payer cannot cover it —
// 402 in the envelope, naming the payer — and nothing is charged or searched.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SeedInput } from '../services/admin/seed-schema.js';
import { ownerTypes } from '../services/kit/enums.js';
import { callAs } from '../services/kit/grpc/client.js';
import { bearer, request } from './helpers/http.js';
import { liveKey } from './helpers/keys.js';
import { storeNames } from './helpers/stores.js';
import { startTestSystem, type TestSystem } from './helpers/test-system.js';

const brokeKey = liveKey();
const fundedKey = liveKey();

const seed: SeedInput = {
  users: [
    { id: 'u_broke', email: 'broke@example.org', name: 'Broke', plan: 'paid' },
    { id: 'u_funded', email: 'funded@example.org', name: 'Funded', plan: 'paid' },
  ],
  profiles: [{ id: 'p_funded', user: 'u_funded', public: true, name: 'Funded Person', headline: 'Protein design' }],
  wallets: [{ owner: { user: 'u_funded' }, balance: 5 }],
  keys: [
    { id: 'k_broke', secret: brokeKey, owner: { user: 'u_broke' }, scopes: ['search:read'] },
    { id: 'k_funded', secret: fundedKey, owner: { user: 'u_funded' }, scopes: ['search:read'] },
  ],
};

describe.each(storeNames())('credit enforcement on %s', (store) => {
  let sys: TestSystem;
  beforeAll(async () => {
    sys = await startTestSystem({ store, seed, env: { CREDIT_ENFORCEMENT: 'on' } });
  });
  afterAll(async () => sys?.stop());

  it('refuses a search its payer cannot cover with 402 insufficient_credits naming the payer, charging nothing', async () => {
    const res = await request(sys.restUrl, 'POST', '/v1/search', { headers: bearer(brokeKey), body: { query: 'protein', scope: 'public' } });
    expect(res.status).toBe(402);
    expect(res.body.error).toMatchObject({
      code: 'insufficient_credits',
      request_id: res.headers.get('x-request-id'),
      payer: { type: 'user', id: 'u_broke', name: 'Broke' },
    });
    const operator = await callAs(sys.signer, { kind: 'operator', actor: 'test' }, undefined, 5000);
    const { entries } = await sys.clients.billing.listLedgerEntries(
      { owner: { type: ownerTypes.toEnum('user'), id: 'u_broke' }, pageSize: 10, pageToken: '' },
      operator,
    );
    expect(entries).toEqual([]);
  });

  it('lets a payer with credits search, and charges the search once', async () => {
    const res = await request(sys.restUrl, 'POST', '/v1/search', { headers: bearer(fundedKey), body: { query: 'protein', scope: 'public' } });
    expect(res.status).toBe(200);
    const me = await request(sys.restUrl, 'GET', '/v1/me', { headers: bearer(fundedKey) });
    expect(me.body.credit_balance).toBe(4);
  });
});
