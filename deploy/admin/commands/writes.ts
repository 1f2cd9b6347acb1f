// `writes enable|disable COMMUNITY`: a community's API-write attestation; each change records a
// new attestation version under the operator's name.
import type { Command } from 'commander';
import { SetApiWritesResponse } from '../../../proto/gen/expertnet/communities/v1/communities_service.js';
import { apiJson } from '../api-json.js';
import type { AdminContext } from '../context.js';
import { print, withJson } from '../output.js';

export function registerWrites(program: Command, ctx: AdminContext): void {
  const writes = program.command('writes').description("a community's API-write attestation");
  for (const [action, enabled] of [['enable', true], ['disable', false]] as const) {
    withJson(writes.command(action))
      .description(`${action} API writes (records a new attestation version when the setting changes)`)
      .argument('<community>', 'the community id')
      .action(async (communityId: string, options: { json?: boolean }) => {
        const set = await ctx.clients().communities.setApiWrites({ communityId, enabled, actor: ctx.actor }, await ctx.call());
        print(apiJson(SetApiWritesResponse, set), options);
      });
  }
}
