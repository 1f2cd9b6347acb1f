// The API keys screen's endpoints over HTTP: what a signed-in user may do to keys. Identity
// re-checks every call: a user cannot see, revoke or mint another user's keys (404/403, through the
// page's own endpoints and on the gRPC method itself), and bad form input is refused with a message.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SeedInput } from '../deploy/admin/seed-schema.js';
import { KeyEnvironment } from '../proto/gen/expertnet/common/v1/common.js';
import { callAs } from '../services/kit/grpc/client.js';
import { readRemoteError } from '../services/kit/grpc/errors.js';
import { bearer, request } from './helpers/http.js';
import { signedInClients, type SettingsClient } from './helpers/settings-browser-http.js';
import { startTestSystem, type TestSystem } from './helpers/test-system.js';

const seed: SeedInput = {
  users: [
    { id: 'u_ada', email: 'ada@example.org', name: 'Ada', plan: 'paid' },
    { id: 'u_bob', email: 'bob@example.org', name: 'Bob', plan: 'free' },
  ],
  // Bob's reach, which his keys' allowlists are chosen from.
  communities: [
    { id: 'c_one', name: 'Community One', owner: { user: 'u_bob' } },
    { id: 'c_two', name: 'Community Two', owner: { user: 'u_bob' } },
  ],
};

function mintedSecretOf(html: string): string {
  return /<code id="new-secret">([^<]+)<\/code>/.exec(html)![1]!;
}

function keyIdsOf(html: string): string[] {
  return [...html.matchAll(/href="\/keys\/([^/"]+)\/revoke"/g)].map((m) => decodeURIComponent(m[1]!));
}

describe('settings web app: key rights', () => {
  let sys: TestSystem;
  let ada: SettingsClient;
  let bob: SettingsClient;
  let adaSecret: string;
  let adaKeyId: string;
  beforeAll(async () => {
    sys = await startTestSystem({ seed });
    [ada, bob] = await signedInClients(sys, 'u_ada', 'u_bob');
    const minted = await ada.mint({ preset: 'read', environment: 'live' });
    expect(minted.status).toBe(200);
    expect(minted.headers.get('cache-control')).toBe('no-store');
    adaSecret = mintedSecretOf(minted.text);
    [adaKeyId] = keyIdsOf((await ada.get('/keys')).text) as [string];
  });
  afterAll(async () => sys?.stop());

  it('lists only the signed-in user’s own keys', async () => {
    expect(keyIdsOf((await ada.get('/keys')).text)).toEqual([adaKeyId]);
    const bobs = await bob.get('/keys');
    expect(keyIdsOf(bobs.text)).toEqual([]);
    expect(bobs.text).not.toContain(adaSecret.slice(0, 15));
  });

  it('answers 404 when a user opens or submits the revocation of another user’s key, and the key keeps working', async () => {
    expect((await bob.get(`/keys/${adaKeyId}/revoke`)).status).toBe(404);
    const forged = await bob.submit('/keys', `/keys/${adaKeyId}/revoke`);
    expect(forged.status).toBe(404);
    expect(forged.text).toContain(`key ${adaKeyId} not found`);
    expect((await request(sys.restUrl, 'GET', '/v1/me', { headers: bearer(adaSecret) })).status).toBe(200);
  });

  it('has identity refuse a signed-in user acting for someone else, whatever the surface sends', async () => {
    const asBob = await callAs(sys.signer, { kind: 'user', userId: 'u_bob' }, undefined, 10_000);
    const refusals = await Promise.all([
      sys.clients.identity.mintKey({ userId: 'u_ada', scopes: [], preset: 'read', requestedRate: 0, environment: KeyEnvironment.KEY_ENVIRONMENT_LIVE, id: '', secret: '', allowlist: undefined }, asBob).catch((e) => e),
      sys.clients.identity.listKeys({ userId: 'u_ada', pageSize: 10, pageToken: '' }, asBob).catch((e) => e),
      sys.clients.identity.revokeKey({ keyId: adaKeyId }, asBob).catch((e) => e),
      // A signed-in user may not fix a key's id or secret (seed files only).
      sys.clients.identity.mintKey({ userId: 'u_bob', scopes: [], preset: 'read', requestedRate: 0, environment: KeyEnvironment.KEY_ENVIRONMENT_LIVE, id: 'k_chosen', secret: '', allowlist: undefined }, asBob).catch((e) => e),
      // Nor call what only the operator or the edge may.
      sys.clients.identity.createSignInLink({ userId: 'u_ada', ttlSeconds: 0 }, asBob).catch((e) => e),
    ]);
    // The last is refused at the service's door (the principal's kind), the others by identity itself.
    expect(refusals.map((e) => readRemoteError(e)?.code)).toEqual(['forbidden', 'forbidden', 'not_found', 'forbidden', 'forbidden']);
    expect(refusals.map((e) => readRemoteError(e)?.metadata.refused_at)).toEqual([undefined, undefined, undefined, undefined, 'door']);
  });

  it('refuses bad form input with a message and mints nothing', async () => {
    const before = keyIdsOf((await bob.get('/keys')).text).length;
    const noPreset = await bob.submit('/keys', '/keys', { preset: 'everything' });
    expect(noPreset.status).toBe(400);
    expect(noPreset.text).toContain('choose the Read preset or Advanced');
    const tooFast = await bob.submit('/keys', '/keys', { preset: 'read', requested_rate: '99999' });
    expect(tooFast.status).toBe(400);
    expect(tooFast.text).toContain('requested_rate must be 1 to 6000 per minute');
    const unknownScope = await bob.submit('/keys', '/keys', { preset: 'advanced', scopes: ['search:read', 'admin:all'] });
    expect(unknownScope.status).toBe(400);
    expect(unknownScope.text).toContain('unknown scope: admin:all');
    expect(keyIdsOf((await bob.get('/keys')).text).length).toBe(before);
  });

  it('mints under Advanced exactly the scopes chosen, with the allowlist and environment asked for', async () => {
    const minted = await bob.mint({ preset: 'advanced', scopes: ['search:read', 'self:enrich'], environment: 'test', allowlist: ['c_one', 'c_two'], requested_rate: '30' });
    expect(minted.status).toBe(200);
    const me = await request(sys.restUrl, 'GET', '/v1/me', { headers: bearer(mintedSecretOf(minted.text)) });
    expect(me.status).toBe(200);
    expect(me.body.scopes).toEqual(['search:read', 'self:enrich']);
    expect(me.body.key.environment).toBe('test');
    const list = (await bob.get('/keys')).text;
    expect(list).toContain('Community One, Community Two');
    expect(list).toContain('30/min asked');
  });
});
