// Minting rules through the identity service, as the operator minting for a signed-in user.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SeedInput } from '../deploy/admin/seed-schema.js';
import { keyEnvironments } from '../services/kit/enums.js';
import { callAs, type CallOptions } from '../services/kit/grpc/client.js';
import { readRemoteError } from '../services/kit/grpc/errors.js';
import { READ_PRESET } from '../services/kit/scopes.js';
import { bearer, request } from './helpers/http.js';
import { startTestSystem, type TestSystem } from './helpers/test-system.js';

const seed: SeedInput = {
  users: [{ id: 'u_ada', email: 'ada@example.org', name: 'Ada', plan: 'paid' }],
  organizations: [{ id: 'o_lab', name: 'Lab', members: [{ user: 'u_ada', role: 'owner' }] }],
};

describe('minting keys', () => {
  let sys: TestSystem;
  let operator: CallOptions;
  const mint = (fields: Partial<Parameters<TestSystem['clients']['identity']['mintKey']>[0]>) =>
    sys.clients.identity.mintKey(
      { userId: 'u_ada', scopes: [], requestedRate: 0, environment: keyEnvironments.toEnum('live'), id: '', secret: '', preset: '', ...fields },
      operator,
    );
  const refusal = async (p: Promise<unknown>) => {
    const error = await p.then(() => undefined, (e: unknown) => e);
    return readRemoteError(error);
  };

  beforeAll(async () => {
    sys = await startTestSystem({ seed });
    operator = await callAs(sys.signer, { kind: 'operator', actor: 'test' }, undefined, 5000);
  });
  afterAll(async () => sys?.stop());

  it('the Read preset gives every read scope and never self:enrich', async () => {
    const { key, secret } = await mint({ preset: 'read' });
    expect(key!.scopes.sort()).toEqual([...READ_PRESET].sort());
    expect(key!.scopes).not.toContain('self:enrich');
    const me = await request(sys.restUrl, 'GET', '/v1/me', { headers: bearer(secret) });
    expect(me.body.scopes.sort()).toEqual(['enrich:read', 'profile:read', 'search:read']);
  });

  it('self:enrich joins the preset only when chosen explicitly', async () => {
    const { key } = await mint({ preset: 'read', scopes: ['self:enrich'] });
    expect(key!.scopes).toContain('self:enrich');
  });

  it('refuses an organization as owner: keys are always personal', async () => {
    const remote = await refusal(mint({ userId: 'o_lab', scopes: ['search:read'] }));
    expect(remote).toMatchObject({ code: 'invalid_request' });
    expect(remote!.message).toContain('always personal');
  });

  it('refuses unknown scopes, an unknown preset, no scope at all, and a rate out of range', async () => {
    expect((await refusal(mint({ scopes: ['admin:all'] })))?.code).toBe('invalid_request');
    expect((await refusal(mint({ preset: 'everything' })))?.code).toBe('invalid_request');
    expect((await refusal(mint({})))?.code).toBe('invalid_request');
    expect((await refusal(mint({ scopes: ['search:read'], requestedRate: 100_000 })))?.code).toBe('invalid_request');
  });

  it('records the requested rate (default 60) and shows it through the rate-limit headers', async () => {
    const fast = await mint({ scopes: ['search:read'], requestedRate: 120 });
    expect(fast.key!.requestedRate).toBe(120);
    const res = await request(sys.restUrl, 'GET', '/v1/me', { headers: bearer(fast.secret) });
    expect(res.headers.get('ratelimit-limit')).toBe('120');
    const plain = await mint({ scopes: ['search:read'] });
    expect(plain.key!.requestedRate).toBe(60);
  });

  it('lets only an operator fix a key id or secret', async () => {
    const caller = await callAs(sys.signer, { kind: 'edge' }, undefined, 5000);
    const remote = await refusal(
      sys.clients.identity.mintKey({ userId: 'u_ada', scopes: ['search:read'], requestedRate: 0, environment: 0, id: 'k_x', secret: '', preset: '' }, caller),
    );
    expect(remote).toBeDefined();
  });
});
