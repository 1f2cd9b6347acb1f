// `communities list|create|archive`: the communities, whoever owns them.
import type { Command } from 'commander';
import {
  ArchiveCommunityResponse, ListAllCommunitiesResponse, UpsertCommunityResponse,
} from '../../../proto/gen/expertnet/communities/v1/communities_service.js';
import type { OwnerRef } from '../../../proto/gen/expertnet/common/v1/common.js';
import { readRemoteError } from '../../../services/kit/grpc/errors.js';
import { apiJson } from '../api-json.js';
import { limit, ownerRef } from '../args.js';
import type { AdminContext } from '../context.js';
import { print, withJson } from '../output.js';
import { DEFAULT_LIMIT, upTo } from '../paging.js';
import { table } from '../table.js';

export function registerCommunities(program: Command, ctx: AdminContext): void {
  const communities = program.command('communities').description('communities: list, create, archive');

  withJson(communities.command('list'))
    .description('every community (archived ones too) with its member count, in id order')
    .option('--limit <n>', `at most this many communities (default ${DEFAULT_LIMIT})`, limit, DEFAULT_LIMIT)
    .action(async (options: { limit: number; json?: boolean }) => {
      const clients = ctx.clients();
      const page = await upTo(options.limit, async (pageSize, pageToken) => {
        const r = await clients.communities.listAllCommunities({ pageSize, pageToken }, await ctx.call());
        return { items: r.communities, nextPageToken: r.nextPageToken };
      });
      const result = apiJson(ListAllCommunitiesResponse, { communities: page.items, nextPageToken: page.nextPageToken });
      print(result, options, {
        human: (r) => table((r.communities as { community: Record<string, unknown>; member_count: number }[])
          .map(({ community, member_count }) => ({ ...community, member_count })),
        ['id', 'name', 'billing_owner', 'member_count', 'api_writes', 'archived', 'created_at']),
      });
    });

  withJson(communities.command('create'))
    .description('create a community (refused when the id exists)')
    .argument('<id>', 'the new community id')
    .requiredOption('--name <name>', 'its display name')
    .requiredOption('--owner <owner>', 'its billing owner: user:ID or organization:ID', ownerRef)
    .action(async (id: string, options: { name: string; owner: OwnerRef; json?: boolean }) => {
      const clients = ctx.clients();
      // UpsertCommunity would overwrite an existing community (name, owner, archived, write
      // attestation): creating refuses an id that is taken.
      const taken = await clients.communities.getCommunity({ communityId: id }, await ctx.call()).then(
        () => true,
        (error: unknown) => (readRemoteError(error)?.code === 'not_found' ? false : Promise.reject(error)),
      );
      if (taken) throw new Error(`community ${id} already exists`);
      const created = await clients.communities.upsertCommunity(
        { community: { id, name: options.name, billingOwner: options.owner, archived: false, apiWrites: false } },
        await ctx.call(),
      );
      print(apiJson(UpsertCommunityResponse, created), options);
    });

  withJson(communities.command('archive'))
    .description('archive a community: memberships survive, reads answer 403 while archived')
    .argument('<id>', 'the community id')
    .option('--unarchive', 'bring it back instead')
    .action(async (id: string, options: { unarchive?: boolean; json?: boolean }) => {
      const changed = await ctx.clients().communities.archiveCommunity({ communityId: id, archived: !options.unarchive }, await ctx.call());
      print(apiJson(ArchiveCommunityResponse, changed), options);
    });
}
