// `tokens issue|grant|list|revoke`: OAuth grants and the local issuer's access tokens
// (docs/OAUTH.md). `issue` signs a token for the REST API by default, or for the MCP server, or for
// the gRPC API (an internal team calling the services directly).
import type { Command } from 'commander';
import {
  CreateGrantResponse, IssueAccessTokenResponse, ListGrantsResponse, RevokeGrantResponse,
} from '../../../proto/gen/expertnet/identity/v1/identity_service.js';
import { apiJson } from '../api-json.js';
import { commaList, limit, oneOf, positive, wholeNumber } from '../args.js';
import { UsageError, type AdminContext } from '../context.js';
import { print, withJson } from '../output.js';
import { DEFAULT_LIMIT, upTo } from '../paging.js';
import { GRPC_AUDIENCE } from '../../../services/kit/grpc-audience.js';

const GRANT_COLUMNS = ['id', 'user_id', 'client_id', 'scopes', 'rate_tier', 'created_at', 'last_used_at', 'revoked_at'];

/**
 * The resource (RFC 8707 audience) a token is issued for: '' is the REST API (identity's
 * OAUTH_AUDIENCE); `mcp` is the MCP server's resource URL, as the running system serves it
 * (locate-system.ts); `grpc` the gRPC API's (grpc-audience.ts); --resource names one verbatim
 * (identity refuses one it does not serve).
 */
function tokenResource(ctx: AdminContext, audience: Surface | undefined, resource: string | undefined): string {
  if (audience !== undefined && resource !== undefined) throw new UsageError('give --audience or --resource, not both');
  if (resource !== undefined) return resource;
  if (audience === 'grpc') return GRPC_AUDIENCE;
  return audience === 'mcp' ? ctx.location().mcpResourceUrl : '';
}

type Surface = 'rest' | 'mcp' | 'grpc';

interface GrantOptions { user: string; scopes: string[]; client?: string; rate?: number; json?: boolean }

export function registerTokens(program: Command, ctx: AdminContext): void {
  const tokens = program.command('tokens').description('OAuth grants and access tokens of the local issuer');
  const grantOptions = (command: Command) => withJson(command)
    .requiredOption('--user <id>', 'the user the grant is for')
    .requiredOption('--scopes <list>', 'comma-separated scopes', commaList)
    .option('--client <id>', 'the OAuth client the user consented to (default: local)')
    .option('--rate <n>', 'requested requests per minute', wholeNumber);

  grantOptions(tokens.command('issue'))
    .description('create a grant and sign an access token for it (for the REST API unless --audience mcp or grpc)')
    .option('--ttl <seconds>', 'lifetime of the token', positive)
    .option('--audience <surface>', 'rest, mcp or grpc', oneOf('rest', 'mcp', 'grpc'))
    .option('--resource <url>', 'the resource URL the token is for, verbatim')
    .action(async (options: GrantOptions & { ttl?: number; audience?: Surface; resource?: string }) => {
      const resource = tokenResource(ctx, options.audience, options.resource);
      const issued = await ctx.clients().identity.issueAccessToken(
        { userId: options.user, scopes: options.scopes, clientId: options.client ?? '', ttlSeconds: options.ttl ?? 0, requestedRate: options.rate ?? 0, resource },
        await ctx.call(),
      );
      print(apiJson(IssueAccessTokenResponse, issued), options);
    });

  grantOptions(tokens.command('grant'))
    .description("create a grant only (for an external issuer's tokens)")
    .action(async (options: GrantOptions) => {
      const created = await ctx.clients().identity.createGrant(
        { userId: options.user, scopes: options.scopes, clientId: options.client ?? '', requestedRate: options.rate ?? 0 },
        await ctx.call(),
      );
      print(apiJson(CreateGrantResponse, created), options);
    });

  withJson(tokens.command('list'))
    .description("a user's grants")
    .requiredOption('--user <id>', 'the user whose grants to list')
    .option('--limit <n>', `at most this many grants (default ${DEFAULT_LIMIT})`, limit, DEFAULT_LIMIT)
    .action(async (options: { user: string; limit: number; json?: boolean }) => {
      const clients = ctx.clients();
      const page = await upTo(options.limit, async (pageSize, pageToken) => {
        const r = await clients.identity.listGrants({ userId: options.user, pageSize, pageToken }, await ctx.call());
        return { items: r.grants, nextPageToken: r.nextPageToken };
      });
      print(apiJson(ListGrantsResponse, { grants: page.items, nextPageToken: page.nextPageToken }), options, { columns: { grants: GRANT_COLUMNS } });
    });

  withJson(tokens.command('revoke'))
    .description('revoke a grant: every token of it is refused from now on')
    .argument('<grant-id>', 'the grant to revoke')
    .action(async (grantId: string, options: { json?: boolean }) => {
      print(apiJson(RevokeGrantResponse, await ctx.clients().identity.revokeGrant({ grantId }, await ctx.call())), options);
    });
}
