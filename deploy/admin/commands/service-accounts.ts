// `service-accounts create|list|revoke`: credentials of machines (docs/OAUTH.md "Service
// accounts"), owned by a user or an organization (who pays), with explicit scopes and communities.
// `create` prints the client secret once (or, with --public-key, registers a key for
// private_key_jwt and makes no secret); the account's id is its OAuth client_id.
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import {
  CreateServiceAccountResponse, ListServiceAccountsResponse, RevokeServiceAccountResponse,
} from '../../../proto/gen/expertnet/identity/v1/service_accounts.js';
import type { OwnerRef } from '../../../proto/gen/expertnet/common/v1/common.js';
import { ownerTypes } from '../../../services/kit/enums.js';
import { apiJson } from '../api-json.js';
import { commaList, limit, wholeNumber } from '../args.js';
import { UsageError, type AdminContext } from '../context.js';
import { print, withJson } from '../output.js';
import { DEFAULT_LIMIT, upTo } from '../paging.js';

const ACCOUNT_COLUMNS = ['id', 'name', 'owner', 'scopes', 'community_ids', 'rate_tier', 'created_at', 'last_used_at', 'revoked_at'];

interface OwnerOptions { ownerUser?: string; ownerOrg?: string }

/** Exactly one of --owner-user and --owner-org. */
function ownerOf(options: OwnerOptions): OwnerRef {
  if (Boolean(options.ownerUser) === Boolean(options.ownerOrg)) throw new UsageError('give one of --owner-user and --owner-org');
  return options.ownerUser
    ? { type: ownerTypes.toEnum('user'), id: options.ownerUser }
    : { type: ownerTypes.toEnum('organization'), id: options.ownerOrg! };
}

const ownerOptions = (command: Command) => withJson(command)
  .option('--owner-user <id>', 'the user who owns it and pays for what it does')
  .option('--owner-org <id>', 'the organization that owns it and pays for what it does');

export function registerServiceAccounts(program: Command, ctx: AdminContext): void {
  const accounts = program.command('service-accounts').description('service accounts: OAuth client credentials for machine callers of the gRPC API');

  ownerOptions(accounts.command('create'))
    .description('create a service account; prints its client id and secret once (no secret with --public-key)')
    .requiredOption('--name <text>', 'what it is called (up to 100 characters)')
    .requiredOption('--scopes <list>', 'comma-separated scopes, e.g. search:read,profile:read', commaList)
    .requiredOption('--communities <list>', 'comma-separated community ids it is limited to (never all)', commaList)
    .option('--rate <n>', 'requested requests per minute (capped by the tier)', wholeNumber)
    .option('--public-key <file>', 'a public JWK (JSON file) for private_key_jwt instead of a client secret')
    .action(async (options: OwnerOptions & { name: string; scopes: string[]; communities: string[]; rate?: number; publicKey?: string; json?: boolean }) => {
      const publicJwk = options.publicKey === undefined ? '' : readFileSync(options.publicKey, 'utf8');
      const created = await ctx.clients().identity.createServiceAccount({
        owner: ownerOf(options), name: options.name, scopes: options.scopes, communityIds: options.communities, requestedRate: options.rate ?? 0, publicJwk,
      }, await ctx.call());
      print(apiJson(CreateServiceAccountResponse, created), options);
    });

  ownerOptions(accounts.command('list'))
    .description("a user's or an organization's service accounts")
    .option('--limit <n>', `at most this many (default ${DEFAULT_LIMIT})`, limit, DEFAULT_LIMIT)
    .action(async (options: OwnerOptions & { limit: number; json?: boolean }) => {
      const owner = ownerOf(options);
      const clients = ctx.clients();
      const page = await upTo(options.limit, async (pageSize, pageToken) => {
        const r = await clients.identity.listServiceAccounts({ owner, pageSize, pageToken }, await ctx.call());
        return { items: r.serviceAccounts, nextPageToken: r.nextPageToken };
      });
      print(apiJson(ListServiceAccountsResponse, { serviceAccounts: page.items, nextPageToken: page.nextPageToken }), options,
        { columns: { service_accounts: ACCOUNT_COLUMNS } });
    });

  withJson(accounts.command('revoke'))
    .description('revoke a service account: its tokens are refused from the next call on, and it gets no new one')
    .argument('<service-account-id>', 'the account to revoke')
    .action(async (serviceAccountId: string, options: { json?: boolean }) => {
      print(apiJson(RevokeServiceAccountResponse, await ctx.clients().identity.revokeServiceAccount({ serviceAccountId }, await ctx.call())), options);
    });
}
