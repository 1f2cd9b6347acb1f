// The payer settings' admin commands as an operator runs them (`npm run admin -- billing …`), and
// their effect on payer resolution.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PayerSource } from '../proto/gen/expertnet/billing/v1/billing_service.js';
import { OwnerType } from '../proto/gen/expertnet/common/v1/common.js';
import type { SeedInput } from '../deploy/admin/seed-schema.js';
import { callAs } from '../services/kit/grpc/client.js';
import { liveKey } from './helpers/keys.js';
import { startTestSystem, type TestSystem } from './helpers/test-system.js';
import { runAdminCli, runAdminInProcess } from './helpers/admin-cli.js';


const secret = liveKey();
const seed: SeedInput = {
  users: [{ id: 'u_kim', email: 'kim@example.org', name: 'Kim' }, { id: 'u_lee', email: 'lee@example.org', name: 'Lee' }],
  organizations: [{ id: 'o_acme', name: 'Acme', members: [{ user: 'u_kim', role: 'member' }] }, { id: 'o_other', name: 'Other' }],
  communities: [{ id: 'c_acme', name: 'Acme experts', owner: { organization: 'o_acme' } }],
  wallets: [{ owner: { user: 'u_kim' }, balance: 5 }],
  keys: [{ id: 'k_kim', secret, owner: { user: 'u_kim' }, scopes: ['profile:read'] }],
};

describe('admin CLI: billing payer settings', () => {
  let sys: TestSystem;
  beforeAll(async () => {
    sys = await startTestSystem({ seed });
  });
  afterAll(async () => sys?.stop());

  // --json: read as a script reads it (the API's names and values). The first command line as a
  // child process, as an operator runs it; the others through the same code in this process.
  const childCli = (args: string[]) => runAdminCli(sys.env, [...args, '--json']);
  const runCli = (args: string[]) => runAdminInProcess(sys.env, [...args, '--json']);

  async function kimPays(communityId: string) {
    const { caller } = await sys.clients.identity.authenticate({ apiKey: secret, accessToken: '' }, await callAs(sys.signer, { kind: 'edge' }, 'r', 5000));
    return sys.clients.billing.resolvePayer(
      { operation: 'search', communityId, caller: undefined },
      await callAs(sys.signer, { kind: 'caller', caller: caller! }, 'r', 5000),
    );
  }

  it('billing set-global-preference saves, validates and clears the wallet of global searches', async () => {
    expect((await kimPays('')).payer).toEqual({ type: OwnerType.OWNER_TYPE_USER, id: 'u_kim' });
    const set = await childCli(['billing', 'set-global-preference', 'u_kim', 'organization:o_acme']);
    expect(set.stderr).toBe('');
    expect(JSON.parse(set.stdout)).toEqual({ user_id: 'u_kim', global_search_wallet: 'organization:o_acme' });
    expect(await kimPays('')).toMatchObject({ payer: { id: 'o_acme' }, source: PayerSource.PAYER_SOURCE_GLOBAL_PREFERENCE });

    const refused = await runCli(['billing', 'set-global-preference', 'u_kim', 'organization:o_other']);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('error: invalid_request');

    expect((await runCli(['billing', 'set-global-preference', 'u_kim', 'none'])).code).toBe(0);
    expect(await kimPays('')).toMatchObject({ payer: { id: 'u_kim' }, source: PayerSource.PAYER_SOURCE_CALLER });
  });

  it('billing set-funding sets standing funding or a monthly delegation budget', async () => {
    expect((await kimPays('c_acme')).source).toBe(PayerSource.PAYER_SOURCE_CALLER);
    const budget = await runCli(['billing', 'set-funding', 'o_acme', '--community', 'c_acme', '--budget', '25']);
    expect(budget.stderr).toBe('');
    expect(JSON.parse(budget.stdout)).toEqual({ organization_id: 'o_acme', community_id: 'c_acme', standing_funding: false, delegation_budget_per_month: 25 });
    expect(await kimPays('c_acme')).toMatchObject({ payer: { id: 'o_acme' }, source: PayerSource.PAYER_SOURCE_DELEGATION_BUDGET });

    expect((await runCli(['billing', 'set-funding', 'o_acme', '--community', 'c_acme', '--standing'])).code).toBe(0);
    expect((await kimPays('c_acme')).source).toBe(PayerSource.PAYER_SOURCE_STANDING_FUNDING);

    const foreign = await runCli(['billing', 'set-funding', 'o_other', '--community', 'c_acme', '--standing']);
    expect(foreign.code).not.toBe(0);
    expect(foreign.stderr).toContain('not owned by organization o_other');
    const badBudget = await runCli(['billing', 'set-funding', 'o_acme', '--budget', '-4']);
    expect(badBudget.code).not.toBe(0);
  });
});
