// The service accounts screen's endpoints (an organization owner's; the views are
// service-accounts-view.ts). Every call acts as the signed-in user: identity lists, creates and
// revokes only the accounts of organizations the user owns (anything else is refused or 404) and
// re-checks that the communities named are within the user's reach.
// Creating is post/redirect/get like minting a key: the POST creates, keeps the secret for one
// showing (secret-flash.ts) and answers 303 to the created page, so a reload never creates another.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Role } from '../../proto/gen/expertnet/common/v1/common.js';
import type { ServiceAccount } from '../../proto/gen/expertnet/identity/v1/service_accounts.js';
import { ownerTypes } from '../../services/kit/enums.js';
import { asUser, type SettingsContext } from './context.js';
import { formRefusalOf, type FormRefusal } from './form-refusal.js';
import { html, page } from './html.js';
import { FormError, list, refuseUnstorableText, single, type MintForm } from './mint-form.js';
import { PageError } from './page-error.js';
import { createSecretFlash } from './secret-flash.js';
import { createForm, organizationAccounts, revokeConfirmation, secretShownOnce, SERVICE_ACCOUNTS_INTRO } from './service-accounts-view.js';
import { requireSession } from './session.js';

const organizationOwner = (id: string) => ({ type: ownerTypes.toEnum('organization'), id });

/** The organizations the user owns, their accounts, and the user's reach (the communities offered). */
async function screenOf(context: SettingsContext, request: FastifyRequest) {
  const options = await asUser(context, request);
  const userId = request.user!.id;
  const [managed, reach] = await Promise.all([
    context.clients.identity.listManagedOrganizations({ userId }, options),
    context.clients.communities.listUserReach({ userId }, options),
  ]);
  const owned = managed.organizations.filter((o) => o.role === Role.ROLE_OWNER);
  const accounts = await Promise.all(owned.map(async (o) =>
    (await context.clients.identity.listServiceAccounts({ owner: organizationOwner(o.organizationId), pageSize: 200, pageToken: '' }, options)).serviceAccounts));
  return { owned, accounts, reach: reach.communities };
}

/** An account of an organization the user owns, or a 404 page. */
async function ownedAccount(context: SettingsContext, request: FastifyRequest, id: string, active = false): Promise<ServiceAccount> {
  const account = (await screenOf(context, request)).accounts.flat().find((a) => a.id === id && (!active || !a.revokedAt));
  if (!account) throw new PageError(404, 'There is no service account with that id that you may manage.');
  return account;
}

function createRequestOf(form: MintForm) {
  refuseUnstorableText(form);
  const name = single(form, 'name');
  if (!name) throw new FormError('give it a name', 'name');
  const scopes = list(form.scopes);
  if (scopes.length === 0) throw new FormError('tick at least one scope', 'scopes');
  const communityIds = list(form.communities);
  if (communityIds.length === 0) throw new FormError('tick at least one community', 'communities');
  return { owner: organizationOwner(single(form, 'organization_id')), name, scopes, communityIds, requestedRate: 0 };
}

/** A create form refused: what was sent, and why. */
type Refused = { sent: MintForm; refusal: FormRefusal };

/** The screen; after a revocation, saying so; after a refused create, with what was sent and why (4xx). */
async function screen(context: SettingsContext, request: FastifyRequest, reply: FastifyReply, revoked?: string, refused?: Refused) {
  const { owned, accounts, reach } = await screenOf(context, request);
  const csrf = reply.generateCsrf();
  const names = new Map(reach.map((c) => [c.id, c.name]));
  const gone = accounts.flat().find((a) => a.id === revoked && a.revokedAt);
  const body = owned.length === 0
    ? html`${SERVICE_ACCOUNTS_INTRO}<p>Service accounts belong to organizations: you own none, so there is nothing to manage here.</p>`
    : html`${SERVICE_ACCOUNTS_INTRO}${owned.map((o, i) => organizationAccounts(o, accounts[i]!, names))}${createForm(csrf, owned, reach, refused?.sent, refused?.refusal)}`;
  return reply.code(refused?.refusal.status ?? 200).type('text/html').send(page({
    title: 'Service accounts', user: request.user!, csrf, current: '/service-accounts', body,
    ...(gone && { notice: { kind: 'ok' as const, text: `${gone.name} was revoked: its access tokens are refused.` } }),
  }));
}

export function registerServiceAccountRoutes(app: FastifyInstance, context: SettingsContext): void {
  const flash = createSecretFlash(app, context);
  const session = requireSession(context);
  const signedIn = { preHandler: session };
  const protectedForm = { preHandler: [session, app.csrfProtection] };

  app.get<{ Querystring: { revoked?: string } }>('/service-accounts', signedIn, async (request, reply) =>
    screen(context, request, reply, typeof request.query.revoked === 'string' ? request.query.revoked : undefined));

  app.post<{ Body: MintForm }>('/service-accounts', protectedForm, async (request, reply) => {
    const sent = request.body ?? {};
    let created;
    try {
      created = await context.clients.identity.createServiceAccount(createRequestOf(sent), await asUser(context, request));
    } catch (error) {
      return screen(context, request, reply, undefined, { sent, refusal: formRefusalOf(error) });
    }
    flash.keep(request, reply, created.serviceAccount!.id, created.clientSecret);
    return reply.redirect(`/service-accounts/${encodeURIComponent(created.serviceAccount!.id)}/created`, 303);
  });

  // Shows the secret kept for this account once; a reload says it was shown.
  app.get<{ Params: { id: string } }>('/service-accounts/:id/created', signedIn, async (request, reply) => {
    const account = await ownedAccount(context, request, request.params.id);
    return reply.type('text/html').header('cache-control', 'no-store').send(page({
      title: 'Service account created', user: request.user!, csrf: reply.generateCsrf(), current: '/service-accounts',
      body: secretShownOnce(account, flash.take(request, reply, account.id)),
    }));
  });

  app.get<{ Params: { id: string } }>('/service-accounts/:id/revoke', signedIn, async (request, reply) => {
    const account = await ownedAccount(context, request, request.params.id, true);
    const csrf = reply.generateCsrf();
    return reply.type('text/html').send(page({
      title: 'Revoke service account', user: request.user!, csrf, current: '/service-accounts', body: revokeConfirmation(account, csrf),
    }));
  });

  // Identity decides (an account of an organization the user owns); anything else is 404.
  app.post<{ Params: { id: string } }>('/service-accounts/:id/revoke', protectedForm, async (request, reply) => {
    await context.clients.identity.revokeServiceAccount({ serviceAccountId: request.params.id }, await asUser(context, request));
    return reply.redirect(`/service-accounts?revoked=${encodeURIComponent(request.params.id)}`, 303);
  });
}
