// The admin CLI's command tree (commander): one file per command group under commands/, each
// registering its subcommands with their own --help. Adding a command is a few lines in its group.
import { Command } from 'commander';
import type { AdminContext } from './context.js';
import { registerBilling } from './commands/billing.js';
import { registerCommunities } from './commands/communities.js';
import { registerConsent } from './commands/consent.js';
import { registerGrpc } from './commands/grpc.js';
import { registerHealth } from './commands/health.js';
import { registerKeys } from './commands/keys.js';
import { registerSearch } from './commands/search.js';
import { registerSeed } from './commands/seed.js';
import { registerServiceAccounts } from './commands/service-accounts.js';
import { registerTokens } from './commands/tokens.js';
import { registerUsers } from './commands/users.js';
import { registerWallets } from './commands/wallets.js';
import { registerWebhooks } from './commands/webhooks.js';
import { registerWrites } from './commands/writes.js';

export function buildProgram(ctx: AdminContext): Command {
  const program = new Command('npm run admin --')
    .description('Operator commands against a running system, over gRPC as the operator.')
    .showHelpAfterError('(add --help for usage)')
    .addHelpText('after', `
Output is made for people (tables); add --json to any command that prints data for JSON with the
API's own field names and values. Long work (seed, search reindex) shows a progress bar on a terminal.
The services and secrets are found through the same environment (and DATA_DIR) as the server: a
system started from the same DATA_DIR is reached without its ports (DATA_DIR/running.json).`);
  registerSeed(program, ctx);
  registerKeys(program, ctx);
  registerTokens(program, ctx);
  registerServiceAccounts(program, ctx);
  registerUsers(program, ctx);
  registerCommunities(program, ctx);
  registerWrites(program, ctx);
  registerConsent(program, ctx);
  registerWallets(program, ctx);
  registerBilling(program, ctx);
  registerSearch(program, ctx);
  registerWebhooks(program, ctx);
  registerHealth(program, ctx);
  registerGrpc(program);
  return program;
}
