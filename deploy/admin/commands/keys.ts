// `keys mint|list|revoke`: API keys of a user, minted by the same path as any key (the tier follows
// the owner's standing). A new key is a test key unless --live (DEFAULT_KEY_ENVIRONMENT, as on the
// settings form): a live one is asked for on purpose. Test and live keys share data and credits.
import type { Command } from 'commander';
import { ListKeysResponse, MintKeyResponse, RevokeKeyResponse } from '../../../proto/gen/expertnet/identity/v1/identity_service.js';
import { DEFAULT_KEY_ENVIRONMENT, keyEnvironments } from '../../../services/kit/enums.js';
import { apiJson } from '../api-json.js';
import { commaList, limit, oneOf, wholeNumber } from '../args.js';
import { UsageError, type AdminContext } from '../context.js';
import { keyIdOf } from '../key-reference.js';
import { print, withJson } from '../output.js';
import { DEFAULT_LIMIT, upTo } from '../paging.js';
import { record } from '../table.js';

const KEY_COLUMNS = ['id', 'prefix', 'environment', 'owner', 'scopes', 'rate_tier', 'created_at', 'last_used_at', 'revoked_at', 'name'];

/** Said with every minted key: the environment is a label, not a sandbox (the contract's prefix rule). */
const ENVIRONMENT_NOTE = 'test and live keys read and write the same data and spend the same credits: the prefix is only a label';

interface MintOptions { user: string; name?: string; scopes?: string[]; preset?: string; allowlist?: string[]; rate?: number; live?: boolean; env?: 'live' | 'test'; json?: boolean }

/** --live, or the older --env live|test; test when neither is given. */
function environmentOf(options: MintOptions): 'live' | 'test' {
  if (options.live && options.env === 'test') throw new UsageError('--live and --env test contradict each other');
  return options.live ? 'live' : (options.env ?? DEFAULT_KEY_ENVIRONMENT);
}

export function registerKeys(program: Command, ctx: AdminContext): void {
  const keys = program.command('keys').description('API keys: mint, list, revoke');

  withJson(keys.command('mint'))
    .description('mint an API key for a user (a test key unless --live); prints its secret once')
    .requiredOption('--user <id>', 'the user who owns the key')
    .option('--name <text>', 'what the key is called (up to 100 characters)')
    .option('--scopes <list>', 'comma-separated scopes, e.g. search:read,profile:read', commaList)
    .option('--preset <name>', 'a named scope set instead of --scopes (e.g. read)')
    .option('--allowlist <list>', 'comma-separated community ids the key is limited to', commaList)
    .option('--rate <n>', 'requested requests per minute (capped by the tier)', wholeNumber)
    .option('--live', 'mint a live key (svc_live_…) instead of a test key; both read and write the same data and spend the same credits')
    .option('--env <environment>', 'live or test (same as --live when live)', oneOf('live', 'test'))
    .action(async (options: MintOptions) => {
      const environment = environmentOf(options);
      const minted = await ctx.clients().identity.mintKey(
        {
          userId: options.user, name: options.name ?? '', scopes: options.scopes ?? [], preset: options.preset ?? '',
          allowlist: options.allowlist === undefined ? undefined : { communityIds: options.allowlist },
          requestedRate: options.rate ?? 0, environment: keyEnvironments.toEnum(environment), id: '', secret: '',
        },
        await ctx.call(),
      );
      print(apiJson(MintKeyResponse, minted), options, {
        human: (r) => `${record(r.key as Record<string, unknown>)}\n\nsecret (shown once, keep it): ${String(r.secret)}\n${ENVIRONMENT_NOTE}`,
      });
    });

  withJson(keys.command('list'))
    .description('the keys a user minted (prefixes only, never a secret)')
    .requiredOption('--user <id>', 'the user whose keys to list')
    .option('--limit <n>', `at most this many keys (default ${DEFAULT_LIMIT})`, limit, DEFAULT_LIMIT)
    .action(async (options: { user: string; limit: number; json?: boolean }) => {
      const clients = ctx.clients();
      const page = await upTo(options.limit, async (pageSize, pageToken) => {
        const r = await clients.identity.listKeys({ userId: options.user, pageSize, pageToken }, await ctx.call());
        return { items: r.keys, nextPageToken: r.nextPageToken };
      });
      print(apiJson(ListKeysResponse, { keys: page.items, nextPageToken: page.nextPageToken }), options, { columns: { keys: KEY_COLUMNS } });
    });

  withJson(keys.command('revoke'))
    .description('revoke a key: its next request is refused (401)')
    .argument('<key>', 'the key id, or its display prefix (e.g. svc_test_t5LAD6) when it names one key')
    .action(async (key: string, options: { json?: boolean }) => {
      const keyId = await keyIdOf(ctx.clients(), await ctx.call(), key);
      const revoked = await ctx.clients().identity.revokeKey({ keyId }, await ctx.call());
      print(apiJson(RevokeKeyResponse, revoked), options);
    });
}
