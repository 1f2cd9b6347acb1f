// The API keys screen's endpoints. Every call acts as the signed-in user: identity mints, lists and
// revokes only that user's own keys, and the legacy keys of organizations the user manages (any
// other key is not found); it re-checks that a new key's allowlist is within the user's reach,
// which the communities service computes (and the form offers). The screen also lists the user's
// connected applications (OAuth grants; grants-routes.ts revokes them).
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Community } from '../../proto/gen/expertnet/communities/v1/communities_service.js';
import type { ApiKey, OAuthGrant, OrganizationKeys } from '../../proto/gen/expertnet/identity/v1/identity_service.js';
import { asUser, type SettingsContext } from './context.js';
import { grantsList } from './grants-view.js';
import { html, page } from './html.js';
import { keysList, mintForm, organizationKeysList, revokeConfirmation, secretShownOnce, type CommunityNames } from './keys-view.js';
import { mintRequestOf, type MintForm } from './mint-form.js';
import { PageError } from './page-error.js';
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

  app.get<{ Querystring: { revoked?: string; revoked_grant?: string } }>('/keys', signedIn, async (request, reply) => {
    const screen = await keysScreenOf(context, request);
    const revokedId = typeof request.query.revoked === 'string' ? request.query.revoked : undefined;
    const revoked = revokedId ? [...screen.own, ...screen.organizations.flatMap((o) => o.keys)].find((k) => k.id === revokedId) : undefined;
    const grantId = typeof request.query.revoked_grant === 'string' ? request.query.revoked_grant : undefined;
    const revokedGrant = grantId ? screen.grants.find((g) => g.id === grantId && g.revokedAt) : undefined;
    const csrf = reply.generateCsrf();
    const notice = revoked
      ? { kind: 'ok' as const, text: `Key ${revoked.prefix}… was revoked: requests with it are refused.` }
      : revokedGrant ? { kind: 'ok' as const, text: `${revokedGrant.clientId} was disconnected: requests with its access tokens are refused.` } : undefined;
    const names = namesOf(screen.reach);
    return reply.type('text/html').send(page({
      title: 'API keys', user: request.user!, csrf, current: '/keys', ...(notice && { notice }),
      body: html`${keysList(screen.own, names)}${organizationKeysList(screen.organizations, names)}${grantsList(screen.grants)}${mintForm(csrf, screen.reach)}`,
    }));
  });

  app.post<{ Body: MintForm }>('/keys', protectedForm, async (request, reply) => {
    const mint = mintRequestOf(request.user!.id, request.body ?? {});
    const { key, secret } = await context.clients.identity.mintKey(mint, await asUser(context, request));
    // The secret travels in this one response only: never stored, logged or put in a URL.
    return reply.code(201).type('text/html').header('cache-control', 'no-store').send(page({
      title: 'Key created', user: request.user!, csrf: reply.generateCsrf(), current: '/keys', body: secretShownOnce(key!, secret),
    }));
  });

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
