// `webhooks endpoints` and `events list`: every owner's webhook endpoints (or one owner's), with
// whose each is and why a disabled one is — never a secret — and the event log whole, with whose
// each event is (docs/WEBHOOKS.md "Operator CLI"). Both newest first, --limit and --after as `users list`.
import type { Command } from 'commander';
import { ListAllEventsResponse, ListAllWebhookEndpointsResponse } from '../../../proto/gen/expertnet/communities/v1/communities_service.js';
import type { OwnerRef } from '../../../proto/gen/expertnet/common/v1/common.js';
import { EVENT_TYPES } from '../../../services/kit/event-types.js';
import { apiJson } from '../api-json.js';
import { limit, oneOf, ownerRef } from '../args.js';
import type { AdminContext } from '../context.js';
import { print, withJson } from '../output.js';
import { DEFAULT_LIMIT, upTo, type Page } from '../paging.js';
import { table } from '../table.js';

type Json = Record<string, unknown>;

const ENDPOINT_COLUMNS = ['id', 'owner', 'url', 'events', 'status', 'disabled_reason', 'created_at', 'description'];
const EVENT_COLUMNS = ['id', 'type', 'created_at', 'community_id', 'user_id', 'credential_id', 'credential_owner'];

interface ListOptions { limit: number; after?: string; json?: boolean }

/** The --limit and --after options of a list, and the note under a cut one (its next --after). */
function listOptions(command: Command, what: string): Command {
  return withJson(command)
    .option('--limit <n>', `at most this many ${what} (default ${DEFAULT_LIMIT})`, limit, DEFAULT_LIMIT)
    .option('--after <token>', 'start after this position (the next_page_token of a list cut by --limit)');
}

const moreOf = (page: Page<unknown>, options: ListOptions) =>
  page.nextPageToken ? { more: `(more follow: --after ${page.nextPageToken} for the next ${options.limit})` } : {};

export function registerWebhooks(program: Command, ctx: AdminContext): void {
  const webhooks = program.command('webhooks').description('webhook endpoints of every owner (read-only)');
  listOptions(webhooks.command('endpoints'), 'endpoints')
    .description('every webhook endpoint, or one owner\'s, newest first (never a secret)')
    .option('--owner <owner>', 'only this owner\'s: user:ID or organization:ID', ownerRef)
    .action(async (options: ListOptions & { owner?: OwnerRef }) => {
      const clients = ctx.clients();
      const page = await upTo(options.limit, async (pageSize, pageToken) => {
        const r = await clients.communities.listAllWebhookEndpoints({ owner: options.owner, pageSize, pageToken }, await ctx.call());
        return { items: r.endpoints, nextPageToken: r.nextPageToken };
      }, options.after);
      const result = apiJson(ListAllWebhookEndpointsResponse, { endpoints: page.items, nextPageToken: page.nextPageToken });
      // An endpoint's secret is never read for the operator; the message's empty field is not printed either.
      const rows = (result.endpoints as { owner: unknown; endpoint: Json }[]).map(({ owner, endpoint: { secret: _none, ...endpoint } }) => ({ owner, endpoint }));
      print({ ...result, endpoints: rows }, options, {
        human: (r) => table((r.endpoints as { owner: unknown; endpoint: Json }[]).map(({ owner, endpoint }) => ({ ...endpoint, owner })), ENDPOINT_COLUMNS),
        ...moreOf(page, options),
      });
    });

  const events = program.command('events').description('the event log (what changed: searches, runs, members)');
  listOptions(events.command('list'), 'events')
    .description('every event, newest first, with whose it is')
    .option('--type <type>', `only this type: ${EVENT_TYPES.join(', ')}`, oneOf(...EVENT_TYPES))
    .action(async (options: ListOptions & { type?: string }) => {
      const clients = ctx.clients();
      const page = await upTo(options.limit, async (pageSize, pageToken) => {
        const r = await clients.communities.listAllEvents({ type: options.type ?? '', pageSize, pageToken }, await ctx.call());
        return { items: r.events, nextPageToken: r.nextPageToken };
      }, options.after);
      print(apiJson(ListAllEventsResponse, { events: page.items, nextPageToken: page.nextPageToken }), options, {
        human: (r) => table((r.events as ({ event: Json } & Json)[]).map(({ event, ...whose }) => ({ ...whose, ...event })), EVENT_COLUMNS),
        ...moreOf(page, options),
      });
    });
}
