// The API keys screen's endpoints. Every call acts as the signed-in user: identity mints, lists and
// revokes only that user's own keys, and the legacy keys of organizations the user manages (any
// other key is not found); it re-checks that a new key's allowlist is within the user's reach,
// which the communities service computes (and the form offers). The screen also lists the user's
// connected applications (OAuth grants; grants-routes.ts revokes them). Roll and rename are
// key-actions-routes.ts's.
// Minting is post/redirect/get: the POST mints, keeps the secret for one showing (secret-flash.ts)
// and answers 303 to the created page, so reloading that page never mints another key. A refused
// form is the keys screen again, with the reason beside the form and what was entered.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Community } from '../../proto/gen/expertnet/communities/v1/communities_service.js';
import type { ApiKey, OAuthGrant, OrganizationKeys } from '../../proto/gen/expertnet/identity/v1/identity_service.js';
import { asUser, type SettingsContext } from './context.js';
import { clientNamesOf } from './grant-clients.js';
import { grantsList } from './grants-view.js';
import { html, page } from './html.js';
import { registerKeyActionRoutes } from './key-actions-routes.js';
import { keysList, mintForm, organizationKeysList, revokeConfirmation, secretAlreadyShown, secretShownOnce, type CommunityNames } from './keys-view.js';
import { formRefusalOf, type FormRefusal } from './form-refusal.js';
import { mintRequestOf, type MintForm } from './mint-form.js';
import { ownKey, ownKeysOf } from './own-keys.js';
import { PageError } from './page-error.js';
import { createSecretFlash } from './secret-flash.js';
import { requireSession } from './session.js';

const LIST_PAGE_SIZE = 100;

/** Everything the keys screen shows of the signed-in user, fetched at once. */
interface KeysScreen {
  own: ApiKey[];
  organizations: OrganizationKeys[];
  reach: Community[];
  grants: OAuthGrant[];
}

async function keysScreenOf(context: SettingsContext, request: FastifyRequest): Promise<KeysScreen> {
  const options = await asUser(context, request);
  const userId = request.user!.id;
  const [own, organizations, reach, grants] = await Promise.all([
    context.clients.identity.listKeys({ userId, pageSize: LIST_PAGE_SIZE, pageToken: '' }, options),
    context.clients.identity.listOrganizationKeys({ userId }, options),
    context.clients.communities.listUserReach({ userId }, options),
    context.clients.identity.listGrants({ userId, pageSize: LIST_PAGE_SIZE, pageToken: '' }, options),
  ]);
  return { own: own.keys, organizations: organizations.organizations, reach: reach.communities, grants: grants.grants };
}

interface KeysQuery {
  revoked?: string;
  revoked_grant?: string;
  renamed?: string;
}

/** What the keys screen says after a revocation, a disconnection or a rename it was sent back from. */
function noticeOf(screen: KeysScreen, query: KeysQuery): { kind: 'ok'; text: string } | undefined {
  const pick = (value: unknown) => (typeof value === 'string' ? value : undefined);
  const allKeys = [...screen.own, ...screen.organizations.flatMap((o) => o.keys)];
  const revoked = allKeys.find((k) => k.id === pick(query.revoked));
  if (revoked) return { kind: 'ok', text: `Key ${revoked.prefix}… was revoked: requests with it are refused.` };
  const grant = screen.grants.find((g) => g.id === pick(query.revoked_grant) && g.revokedAt);
  if (grant) return { kind: 'ok', text: `${grant.clientId} was disconnected: requests with its access tokens are refused.` };
  const renamed = screen.own.find((k) => k.id === pick(query.renamed));
  if (renamed) return { kind: 'ok', text: `Key ${renamed.prefix}… was renamed${renamed.name ? `: ${renamed.name}` : ''}.` };
  return undefined;
}

function namesOf(reach: readonly Community[]): CommunityNames {
  return new Map(reach.map((c) => [c.id, c.name]));
}

/** An active key the user may revoke: their own, or one of an organization they manage (with its name). */
function revocable(screen: KeysScreen, keyId: string): { key: ApiKey; organizationName?: string } | undefined {
  const own = screen.own.find((k) => k.id === keyId && !k.revokedAt);
  if (own) return { key: own };
  for (const o of screen.organizations) {
    const key = o.keys.find((k) => k.id === keyId && !k.revokedAt);
    if (key) return { key, organizationName: o.organizationName };
  }
  return undefined;
}

export function registerKeyRoutes(app: FastifyInstance, context: SettingsContext): void {
  const signedIn = { preHandler: requireSession(context) };
  const protectedForm = { preHandler: [requireSession(context), app.csrfProtection] };

  const flash = createSecretFlash(app, context);

  /** The keys screen; after a refused mint, with what was sent and why (`status` 4xx). */
  async function keysPage(request: FastifyRequest, reply: FastifyReply, query: KeysQuery, refused?: { sent: MintForm; refusal: FormRefusal }) {
    const screen = await keysScreenOf(context, request);
    const csrf = reply.generateCsrf();
    const notice = noticeOf(screen, query);
    const names = namesOf(screen.reach);
    return reply.code(refused?.refusal.status ?? 200).type('text/html').send(page({
      title: 'API keys', user: request.user!, csrf, current: '/keys', ...(notice && { notice }),
      body: html`${keysList(screen.own, names)}${organizationKeysList(screen.organizations, names)}${grantsList(screen.grants, await clientNamesOf(context, screen.grants))}${mintForm(csrf, screen.reach, refused?.sent, refused?.refusal)}`,
    }));
  }

  app.get<{ Querystring: KeysQuery }>('/keys', signedIn, async (request, reply) => keysPage(request, reply, request.query));

  app.post<{ Body: MintForm }>('/keys', protectedForm, async (request, reply) => {
    const sent = request.body ?? {};
    let minted;
    try {
      minted = await context.clients.identity.mintKey(mintRequestOf(request.user!.id, sent), await asUser(context, request));
    } catch (error) {
      return keysPage(request, reply, {}, { sent, refusal: formRefusalOf(error) });
    }
    // The secret is never stored server-side, logged or put in a URL: it waits, sealed, for its page.
    flash.keep(request, reply, minted.key!.id, minted.secret);
    return reply.redirect(`/keys/${encodeURIComponent(minted.key!.id)}/created`, 303);
  });

  // Shows the secret kept for this key once; a reload (or any later visit) says it was shown.
  app.get<{ Params: { id: string } }>('/keys/:id/created', signedIn, async (request, reply) => {
    const own = await ownKeysOf(context, request);
    const key = ownKey(own, request.params.id);
    const replaced = own.find((k) => k.replacedByKeyId === key.id);
    const secret = flash.take(request, reply, key.id);
    return reply.type('text/html').header('cache-control', 'no-store').send(page({
      title: 'Key created', user: request.user!, csrf: reply.generateCsrf(), current: '/keys',
      body: secret ? secretShownOnce(key, secret, replaced) : secretAlreadyShown(key, replaced),
    }));
  });

  registerKeyActionRoutes(app, context, flash);

  app.get<{ Params: { id: string } }>('/keys/:id/revoke', signedIn, async (request, reply) => {
    const found = revocable(await keysScreenOf(context, request), request.params.id);
    if (!found) throw new PageError(404, 'There is no active key with that id that you may revoke.');
    const csrf = reply.generateCsrf();
    return reply.type('text/html').send(page({
      title: 'Revoke key', user: request.user!, csrf, current: '/keys', body: revokeConfirmation(found.key, csrf, found.organizationName),
    }));
  });

  // Identity decides (own key, or a key of an organization the user manages); anything else is 404.
  app.post<{ Params: { id: string } }>('/keys/:id/revoke', protectedForm, async (request, reply) => {
    await context.clients.identity.revokeKey({ keyId: request.params.id }, await asUser(context, request));
    return reply.redirect(`/keys?revoked=${encodeURIComponent(request.params.id)}`, 303);
  });
}
