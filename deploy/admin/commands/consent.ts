// `consent list|approve|deny`: the owners' consent queue — writes waiting for the owner's approval
// (just-in-time consent), resolved under the operator's name.
import type { Command } from 'commander';
import { ListConsentRequestsResponse, ResolveConsentRequestResponse } from '../../../proto/gen/expertnet/communities/v1/communities_service.js';
import { apiJson } from '../api-json.js';
import { limit } from '../args.js';
import type { AdminContext } from '../context.js';
import { print, withJson } from '../output.js';
import { DEFAULT_LIMIT, upTo } from '../paging.js';

const CONSENT_COLUMNS = ['id', 'community_id', 'operation', 'status', 'requested_by', 'created_at', 'resolved_by', 'resolved_at'];

export function registerConsent(program: Command, ctx: AdminContext): void {
  const consent = program.command('consent').description("the owners' consent queue of writes waiting for approval");
  withJson(consent.command('list'))
    .description("a community's consent requests")
    .argument('<community>', 'the community id')
    .option('--limit <n>', `at most this many requests (default ${DEFAULT_LIMIT})`, limit, DEFAULT_LIMIT)
    .action(async (communityId: string, options: { limit: number; json?: boolean }) => {
      const clients = ctx.clients();
      const page = await upTo(options.limit, async (pageSize, pageToken) => {
        const r = await clients.communities.listConsentRequests({ communityId, pageSize, pageToken, status: 0 }, await ctx.call());
        return { items: r.requests, nextPageToken: r.nextPageToken };
      });
      print(apiJson(ListConsentRequestsResponse, { requests: page.items, nextPageToken: page.nextPageToken }), options, { columns: { requests: CONSENT_COLUMNS } });
    });
  for (const [action, approve] of [['approve', true], ['deny', false]] as const) {
    withJson(consent.command(action))
      .description(`${action} a consent request`)
      .argument('<request-id>', 'the consent request id')
      .action(async (consentRequestId: string, options: { json?: boolean }) => {
        const resolved = await ctx.clients().communities.resolveConsentRequest({ consentRequestId, approve, actor: ctx.actor }, await ctx.call());
        print(apiJson(ResolveConsentRequestResponse, resolved), options);
      });
  }
}
