// The credits screen's endpoints. Every call acts as the signed-in user: billing lists only the
// wallets the user may spend from (their own, their organizations'), answers any other wallet as
// not found (404), and refuses saving a global-search wallet the user may not spend from (403).
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { LedgerEntry, ListSpendableWalletsResponse } from '../../proto/gen/expertnet/billing/v1/billing_service.js';
import { OwnerType, type OwnerRef } from '../../proto/gen/expertnet/common/v1/common.js';
import { asUser, type SettingsContext } from './context.js';
import { creditsScreen, walletKey, walletScreen } from './credits-view.js';
import { page } from './html.js';
import { PageError } from './page-error.js';
import { requireSession } from './session.js';

/** How many of the newest entries the overview shows, across all the user's wallets. */
const RECENT_ENTRIES = 20;
const WALLET_PAGE_SIZE = 50;

const KINDS: Record<string, OwnerType> = { user: OwnerType.OWNER_TYPE_USER, organization: OwnerType.OWNER_TYPE_ORGANIZATION };

/** The form's wallet: `none` clears the preference; else `user:ID` or `organization:ID`. */
function walletOfForm(value: unknown): OwnerRef | undefined {
  if (value === 'none') return undefined;
  const match = typeof value === 'string' ? /^(user|organization):(.+)$/.exec(value) : null;
  if (!match) throw new PageError(400, 'wallet: choose one of your wallets, or no preference.');
  return { type: KINDS[match[1]!]!, id: match[2]! };
}

async function overviewOf(context: SettingsContext, request: FastifyRequest): Promise<ListSpendableWalletsResponse> {
  return context.clients.billing.listSpendableWallets({ userId: request.user!.id }, await asUser(context, request));
}

/** The newest entries of all the user's wallets, merged: one page of each is enough for the newest overall. */
async function recentEntries(context: SettingsContext, request: FastifyRequest, overview: ListSpendableWalletsResponse): Promise<LedgerEntry[]> {
  const options = await asUser(context, request);
  const pages = await Promise.all(overview.wallets.map((w) =>
    context.clients.billing.listLedgerEntries({ owner: w.wallet!.owner, pageSize: RECENT_ENTRIES, pageToken: '' }, options)));
  return pages.flatMap((p) => p.entries)
    .sort((a, b) => (b.createdAt ?? '').localeCompare(a.createdAt ?? '') || b.id.localeCompare(a.id))
    .slice(0, RECENT_ENTRIES);
}

export function registerCreditRoutes(app: FastifyInstance, context: SettingsContext): void {
  const signedIn = { preHandler: requireSession(context) };
  const protectedForm = { preHandler: [requireSession(context), app.csrfProtection] };

  app.get<{ Querystring: { done?: string } }>('/credits', signedIn, async (request, reply) => {
    const overview = await overviewOf(context, request);
    const recent = await recentEntries(context, request, overview);
    const csrf = reply.generateCsrf();
    // A fixed text by code, so a crafted link cannot put words on the page.
    const notice = request.query.done === 'preference' ? { kind: 'ok' as const, text: 'Your global-search wallet preference was saved.' } : undefined;
    return reply.type('text/html').send(page({
      title: 'Credits', user: request.user!, csrf, current: '/credits', ...(notice && { notice }),
      body: creditsScreen(overview, recent, csrf),
    }));
  });

  app.get<{ Params: { kind: string; id: string }; Querystring: { page?: string } }>('/credits/wallets/:kind/:id', signedIn, async (request, reply) => {
    const type = KINDS[request.params.kind];
    if (type === undefined) throw new PageError(404, 'There is no such wallet.');
    const owner = { type, id: request.params.id };
    const pageToken = typeof request.query.page === 'string' ? request.query.page : '';
    // Billing re-checks the wallet is one the user may spend from (else not found).
    const { entries, nextPageToken } = await context.clients.billing.listLedgerEntries(
      { owner, pageSize: WALLET_PAGE_SIZE, pageToken }, await asUser(context, request));
    const wallet = (await overviewOf(context, request)).wallets.find((w) => walletKey(w.wallet!.owner) === walletKey(owner));
    if (!wallet) throw new PageError(404, 'There is no wallet of yours with that id.');
    return reply.type('text/html').send(page({
      title: `Wallet: ${wallet.name}`, user: request.user!, csrf: reply.generateCsrf(), current: '/credits',
      body: walletScreen(wallet, entries, nextPageToken),
    }));
  });

  app.post<{ Body: { wallet?: string } }>('/credits/preference', protectedForm, async (request, reply) => {
    const wallet = walletOfForm(request.body?.wallet);
    await context.clients.billing.setGlobalSearchPreference({ userId: request.user!.id, wallet }, await asUser(context, request));
    return reply.redirect('/credits?done=preference', 303);
  });
}
