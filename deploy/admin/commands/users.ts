// `users list|set-plan|set-jit|sign-in-link`: the users the identity service keeps.
import type { Command } from 'commander';
import { ListUsersResponse, SetUserPlanResponse, UpsertUserResponse } from '../../../proto/gen/expertnet/identity/v1/identity_service.js';
import { plans, type PlanName } from '../../../services/kit/enums.js';
import { mintSignInLink } from '../../launcher/sign-in-link.js';
import { apiJson } from '../api-json.js';
import { limit, oneOf } from '../args.js';
import type { AdminContext } from '../context.js';
import { print, withJson } from '../output.js';
import { DEFAULT_LIMIT, upTo } from '../paging.js';

const USER_COLUMNS = ['id', 'name', 'email', 'plan', 'jit_consent', 'created_at'];

export function registerUsers(program: Command, ctx: AdminContext): Command {
  const users = program.command('users').description('users: list, plans, just-in-time consent');

  withJson(users.command('list'))
    .description('every user, or those matching --query, in id order')
    .option('--limit <n>', `at most this many users (default ${DEFAULT_LIMIT})`, limit, DEFAULT_LIMIT)
    .option('--after <id>', 'start after this user id (the next_page_token of a list cut by --limit)')
    .option('--query <text>', 'only users whose name or email contains this text (ignoring case)')
    .action(async (options: { limit: number; after?: string; query?: string; json?: boolean }) => {
      const clients = ctx.clients();
      const query = options.query ?? '';
      const page = await upTo(options.limit, async (pageSize, pageToken) => {
        const r = await clients.identity.listUsers({ pageSize, pageToken, query }, await ctx.call());
        return { items: r.users, nextPageToken: r.nextPageToken };
      }, options.after);
      print(apiJson(ListUsersResponse, { users: page.items, nextPageToken: page.nextPageToken }), options, {
        columns: { users: USER_COLUMNS },
        // People see where the next page starts (the table hides the token).
        ...(page.nextPageToken && { more: `(more follow: --after ${page.nextPageToken} for the next ${options.limit})` }),
      });
    });

  withJson(users.command('set-plan'))
    .description("change a user's plan (existing keys keep their tier)")
    .argument('<user>', 'the user id')
    .argument('<plan>', 'free, trial or paid', oneOf(...plans.names))
    .action(async (userId: string, plan: PlanName, options: { json?: boolean }) => {
      const updated = await ctx.clients().identity.setUserPlan({ userId, plan: plans.toEnum(plan) }, await ctx.call());
      print(apiJson(SetUserPlanResponse, updated), options);
    });

  withJson(users.command('set-jit'))
    .description("just-in-time write consent for the user's communities")
    .argument('<user>', 'the user id')
    .argument('<setting>', 'on or off', oneOf('on', 'off'))
    .action(async (userId: string, setting: 'on' | 'off', options: { json?: boolean }) => {
      const clients = ctx.clients();
      // UpsertUser replaces the whole record: read it first and change only jit_consent.
      const { user } = await clients.identity.getUser({ userId }, await ctx.call());
      const updated = await clients.identity.upsertUser({ user: { ...user!, jitConsent: setting === 'on' } }, await ctx.call());
      print(apiJson(UpsertUserResponse, updated), options);
    });

  withJson(users.command('sign-in-link'))
    .description('a one-time link to the settings web app, valid 15 minutes (built on SETTINGS_PUBLIC_URL, else the settings address the running system bound)')
    .requiredOption('--user <id>', 'the user who signs in')
    .action(async (options: { user: string; json?: boolean }) => {
      const { clients, signer } = ctx.services();
      const link = await mintSignInLink({ clients, signer, deadlineMs: 30_000 }, ctx.location().settingsUrl, options.user, ctx.actor);
      print({ url: link.url, expires_at: link.expiresAt }, options);
    });
  return users;
}
