// The billing suites' shared setup: a seed of payers, plans and organizations, the caller shapes
// the edge passes on, the admin CLI as a child process, and a harness over the billing gRPC client.
import { expect } from 'vitest';
import { Caller, CredentialKind, OwnerType } from '../../proto/gen/expertnet/common/v1/common.js';
import type { SeedInput } from '../../deploy/admin/seed-schema.js';
import { callAs, type CallOptions } from '../../services/kit/grpc/client.js';
import { readRemoteError } from '../../services/kit/grpc/errors.js';
import type { TestSystem } from './test-system.js';
import { runAdminCli, type CliResult } from './admin-cli.js';

export const DAY = 24 * 60 * 60 * 1000;

export const USER = OwnerType.OWNER_TYPE_USER;
const ORGANIZATION = OwnerType.OWNER_TYPE_ORGANIZATION;
export const user = (id: string) => ({ type: USER, id });
export const organization = (id: string) => ({ type: ORGANIZATION, id });

/** The caller as the edge would pass it on (a personal key of the user). */
export function callerOf(userId: string, credentialId = `k_${userId}`): Caller {
  return Caller.fromPartial({ credentialId, credential: CredentialKind.CREDENTIAL_KIND_API_KEY, owner: user(userId), userId });
}
/** A legacy organization-owned key: no user behind it. */
export const legacyCaller = (organizationId: string) =>
  Caller.fromPartial({ credentialId: `k_legacy_${organizationId}`, credential: CredentialKind.CREDENTIAL_KIND_API_KEY, owner: organization(organizationId) });

export const seed: SeedInput = {
  users: [
    { id: 'u_payer', name: 'Pat Payer', plan: 'free' },
    { id: 'u_broke', name: 'Bo Broke', plan: 'free' },
    { id: 'u_paid', name: 'Paula Paid', plan: 'paid' },
    { id: 'u_paid_poor', name: 'Poor Paid', plan: 'paid' },
    { id: 'u_free', name: 'Fred Free', plan: 'free' },
    { id: 'u_trial', name: 'Tri Trial', plan: 'trial' },
    { id: 'u_race', name: 'Rae Race', plan: 'free' },
    { id: 'u_member', name: 'Mem Member', plan: 'free' },
    { id: 'u_manager', name: 'Man Manager', plan: 'free' },
  ],
  organizations: [
    { id: 'o_lab', name: 'The Lab', members: [{ user: 'u_member', role: 'member' }, { user: 'u_manager', role: 'admin' }] },
  ],
  communities: [
    { id: 'c_plain', name: 'Uncovered', owner: { organization: 'o_lab' } },
    { id: 'c_budget', name: 'Budgeted', owner: { organization: 'o_lab' } },
    { id: 'c_funded', name: 'Funded', owner: { organization: 'o_lab' } },
    { id: 'c_own', name: 'Own', owner: { user: 'u_member' } },
  ],
  wallets: [
    { owner: { user: 'u_payer' }, balance: 1000 },
    { owner: { user: 'u_paid' }, balance: 10 },
    { owner: { user: 'u_member' }, balance: 50 },
    { owner: { user: 'u_manager' }, balance: 50 },
    { owner: { organization: 'o_lab' }, balance: 100 },
  ],
};

/** The admin CLI with --json (read as a script reads it: the API's names and values). */
export function runCli(sys: TestSystem, args: string[]): Promise<CliResult> {
  return runAdminCli(sys.env, [...args, '--json']);
}

/** The failure of a call: its API code, message and ErrorInfo metadata (fails when it succeeded). */
export async function failure(promise: Promise<unknown>) {
  const error = await promise.then(
    () => expect.unreachable('the call succeeded'),
    (e: unknown) => e,
  );
  const remote = readRemoteError(error);
  expect(remote, String(error)).toBeDefined();
  return { ...remote!, error };
}

export function harness(get: () => TestSystem) {
  const service = () => callAs(get().signer, { kind: 'service', service: 'test' }, 'req_metering', 10_000);
  const operator = () => callAs(get().signer, { kind: 'operator', actor: 'test' }, undefined, 10_000);
  return {
    service,
    operator,
    async balance(owner: { type: OwnerType; id: string }) {
      return (await get().clients.billing.getWallet({ owner }, await operator())).wallet!.balance;
    },
    async charge(req: { payer: { type: OwnerType; id: string }; operation: string; units?: number; reference: string; credentialId?: string; communityId?: string }, options?: CallOptions) {
      return get().clients.billing.charge(
        { units: 1, credentialId: '', communityId: '', ...req },
        options ?? (await service()),
      );
    },
    async chargeMany(req: { payer: { type: OwnerType; id: string }; operation: string; references: string[]; credentialId?: string; communityId?: string }, options?: CallOptions) {
      return get().clients.billing.chargeMany({ credentialId: '', communityId: '', ...req }, options ?? (await service()));
    },
    async checkFunds(caller: Caller, operation: string, communityId = '', units = 1) {
      return get().clients.billing.checkFunds({ operation, communityId, units, caller }, await service());
    },
    async meterSelfEnrich(caller: Caller, runId: string) {
      return get().clients.billing.meterSelfEnrich({ runId, caller }, await service());
    },
    async reconcile() {
      return get().clients.billing.reconcile({}, await operator());
    },
  };
}
