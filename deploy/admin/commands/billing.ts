// `billing rates|reconcile|set-global-preference|set-funding`: who pays, at which rates, and
// whether every wallet still matches its ledger.
import type { Command } from 'commander';
import type { OwnerRef } from '../../../proto/gen/expertnet/common/v1/common.js';
import { ownerTypes } from '../../../services/kit/enums.js';
import { ownerRef, wholeNumber } from '../args.js';
import type { AdminContext } from '../context.js';
import { print, withJson } from '../output.js';

const ownerName = (owner: OwnerRef | undefined) => `${owner ? ownerTypes.toName(owner.type, 'owner.type') : 'unknown'}:${owner?.id ?? ''}`;

export function registerBilling(program: Command, ctx: AdminContext): void {
  const billing = program.command('billing').description('rates, reconciliation and who pays');

  withJson(billing.command('rates'))
    .description('credits per unit of each billable operation, as configured')
    .action(async (options: { json?: boolean }) => {
      const { rates } = await ctx.clients().billing.listRates({}, await ctx.call());
      print({ rates: rates.map((r) => ({ operation: r.operation, credits_per_unit: r.creditsPerUnit })) }, options);
    });

  withJson(billing.command('reconcile'))
    .description('wallets whose balance differs from the sum of their ledger; exits 1 when there is any')
    .action(async (options: { json?: boolean }) => {
      const result = await ctx.clients().billing.reconcile({}, await ctx.call());
      const mismatches = result.mismatches.map((m) => ({ owner: ownerName(m.owner), balance: m.balance, ledger_sum: m.ledgerSum }));
      if (mismatches.length > 0) {
        process.stderr.write(`error: ${mismatches.length} wallet(s) do not match their ledger\n`);
        process.exitCode = 1;
      }
      print({ wallets_checked: result.walletsChecked, mismatches }, options);
    });

  withJson(billing.command('set-global-preference'))
    .description("the wallet of a user's global searches: the user's own or an organization's the user belongs to")
    .argument('<user>', 'the user id')
    .argument('<owner>', 'user:ID, organization:ID, or none to clear')
    .action(async (userId: string, target: string, options: { json?: boolean }) => {
      const wallet = target === 'none' ? undefined : ownerRef(target);
      await ctx.clients().billing.setGlobalSearchPreference({ userId, wallet }, await ctx.call());
      print({ user_id: userId, global_search_wallet: target === 'none' ? null : target }, options);
    });

  withJson(billing.command('set-funding'))
    .description('how an organization covers charges named to one community it owns, or to every one without --community')
    .argument('<organization>', 'the organization id')
    .option('--community <id>', 'the community (every community the organization owns without it)')
    .option('--standing', 'standing funding: the organization pays')
    .option('--budget <n>', 'a delegation budget of N credits per UTC month', wholeNumber)
    .action(async (organizationId: string, options: { community?: string; standing?: boolean; budget?: number; json?: boolean }) => {
      const standing = options.standing ?? false;
      const budget = options.budget ?? 0;
      await ctx.clients().billing.setOrganizationFunding(
        { organizationId, communityId: options.community ?? '', standingFunding: standing, delegationBudgetPerMonth: budget },
        await ctx.call(),
      );
      print({ organization_id: organizationId, community_id: options.community ?? null, standing_funding: standing, delegation_budget_per_month: budget }, options);
    });
}
