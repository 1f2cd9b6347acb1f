// Identity's cache of API-key callers on its own (docs/CREDENTIAL-CACHE.md): what a live read
// leaves behind, and what publication after a change writes. The whole path through the edge is
// in test/credential-cache.test.ts.
import { describe, expect, it } from 'vitest';
import { MemoryCredentialStamps } from '../kit/credential-stamps.js';
import { createCredentialCache, stampOfKey } from './credential-cache.js';
import { callerOfKey } from './identity-messages.js';
import type { AuthenticatedKeyRow } from './key.repository.js';

const row: AuthenticatedKeyRow = {
  id: 'k_one', secret_hash: 'h_one', display_prefix: 'svc_test_abc', environment: 'test', owner_type: 'user', owner_id: 'u_ada',
  minted_by_user_id: 'u_ada', scopes: ['search:read'], allowlist: null, rate_tier: 'standard', requested_rate: 60, name: '',
  created_at: new Date(), last_used_at: null, revoked_at: null, expires_at: null, replaced_by: null, managed_organization_ids: ['o_lab'],
};

describe('the credential cache', () => {
  it('keeps a caller read live and seeds the stamp a publication of the same key gives', async () => {
    const stamps = new MemoryCredentialStamps();
    const cache = createCredentialCache(stamps);
    await cache.remember('h_one', callerOfKey(row), Date.now());
    expect(cache.get('h_one')?.caller).toEqual(callerOfKey(row));
    expect(stamps.current('k_one')).toBe(cache.get('h_one')?.stamp);
    expect(stampOfKey(row)).toBe(cache.get('h_one')?.stamp);
  });

  it('keeps nothing of a read that took 30 s or more, and seeds nothing', async () => {
    const stamps = new MemoryCredentialStamps();
    const cache = createCredentialCache(stamps);
    await cache.remember('h_one', callerOfKey(row), Date.now() - 30_000);
    expect(cache.get('h_one')).toBeUndefined();
    expect(stamps.current('k_one')).toBeUndefined();
  });

  it('publishes "revoked" for a revoked key, and a new stamp for changed grants', async () => {
    const stamps = new MemoryCredentialStamps();
    const cache = createCredentialCache(stamps);
    await cache.remember('h_one', callerOfKey(row), Date.now());
    const before = stamps.current('k_one');
    await cache.publish([{ ...row, scopes: ['search:read', 'profile:read'] }]);
    expect(stamps.current('k_one')).not.toBe(before);
    await cache.publish([{ ...row, revoked_at: new Date() }]);
    expect(stamps.current('k_one')).toBe('revoked');
  });

  it('keeps an expiring key no later than it expires, and its stamp changes with its expiry (a roll)', async () => {
    const stamps = new MemoryCredentialStamps();
    const cache = createCredentialCache(stamps);
    const soon = new Date(Date.now() + 50);
    await cache.remember('h_one', callerOfKey(row), Date.now(), soon);
    expect(cache.get('h_one')).toBeDefined();
    expect(stampOfKey({ ...row, expires_at: soon })).toBe(cache.get('h_one')?.stamp);
    expect(stampOfKey(row)).not.toBe(cache.get('h_one')?.stamp);
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(cache.get('h_one')).toBeUndefined();
  });
});
