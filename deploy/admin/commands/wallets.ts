// `wallets credit|show`: an owner's wallet and its ledger.
import type { Command } from 'commander';
import { CreditWalletResponse, GetWalletResponse, ListLedgerEntriesResponse } from '../../../proto/gen/expertnet/billing/v1/billing_service.js';
import type { OwnerRef } from '../../../proto/gen/expertnet/common/v1/common.js';
import { apiJson } from '../api-json.js';
import { limit, ownerRef, positive } from '../args.js';
import type { AdminContext } from '../context.js';
import { print, withJson } from '../output.js';
import { upTo } from '../paging.js';
import { record, table } from '../table.js';

const ENTRY_COLUMNS = ['id', 'created_at', 'operation', 'amount', 'balance_after', 'reference', 'credential_id'];

export function registerWallets(program: Command, ctx: AdminContext): void {
  const wallets = program.command('wallets').description('wallets: credit, show');

  withJson(wallets.command('credit'))
    .description('add credits to a wallet, once per reference')
    .argument('<owner>', 'user:ID or organization:ID', ownerRef)
    .requiredOption('--amount <n>', 'credits to add', positive)
    .requiredOption('--reference <ref>', 'your reference; the same one again adds nothing')
    .action(async (owner: OwnerRef, options: { amount: number; reference: string; json?: boolean }) => {
      const credited = await ctx.clients().billing.creditWallet({ owner, amount: options.amount, reference: options.reference, note: '' }, await ctx.call());
      print(apiJson(CreditWalletResponse, credited), options);
    });

  withJson(wallets.command('show'))
    .description("a wallet's balance and its latest ledger entries, newest first")
    .argument('<owner>', 'user:ID or organization:ID', ownerRef)
    .option('--limit <n>', 'at most this many entries (default 20)', limit, 20)
    .action(async (owner: OwnerRef, options: { limit: number; json?: boolean }) => {
      const clients = ctx.clients();
      const [wallet, ledger] = await Promise.all([
        clients.billing.getWallet({ owner }, await ctx.call()),
        upTo(options.limit, async (pageSize, pageToken) => {
          const r = await clients.billing.listLedgerEntries({ owner, pageSize, pageToken }, await ctx.call());
          return { items: r.entries, nextPageToken: r.nextPageToken };
        }),
      ]);
      const result = {
        ...apiJson(GetWalletResponse, wallet),
        recent: apiJson(ListLedgerEntriesResponse, { entries: ledger.items, nextPageToken: ledger.nextPageToken }),
      };
      print(result, options, {
        human: (r) => `${record(r.wallet as Record<string, unknown>)}\n\n${table((r.recent as { entries: Record<string, unknown>[] }).entries, ENTRY_COLUMNS)}`,
      });
    });
}
