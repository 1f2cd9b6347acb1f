// Revoking a connected application (an OAuth grant) from the API keys screen. Every call acts as
// the signed-in user: identity lists and revokes only the user's own grants (any other is 404).
import type { FastifyInstance } from 'fastify';
import { asUser, type SettingsContext } from './context.js';
import { clientNamesOf } from './grant-clients.js';
import { grantRevokeConfirmation } from './grants-view.js';
import { page } from './html.js';
import { PageError } from './page-error.js';
import { requireSession } from './session.js';

export function registerGrantRoutes(app: FastifyInstance, context: SettingsContext): void {
  const signedIn = { preHandler: requireSession(context) };
  const protectedForm = { preHandler: [requireSession(context), app.csrfProtection] };

  app.get<{ Params: { id: string } }>('/grants/:id/revoke', signedIn, async (request, reply) => {
    const { grants } = await context.clients.identity.listGrants(
      { userId: request.user!.id, pageSize: 100, pageToken: '' }, await asUser(context, request));
    const grant = grants.find((g) => g.id === request.params.id && !g.revokedAt);
    if (!grant) throw new PageError(404, 'There is no connected application with that id that you may revoke.');
    const csrf = reply.generateCsrf();
    return reply.type('text/html').send(page({
      title: 'Revoke access', user: request.user!, csrf, current: '/keys',
      body: grantRevokeConfirmation(grant, csrf, await clientNamesOf(context, [grant])),
    }));
  });

  // Identity decides (the user's own grant); anything else is 404. Its tokens are refused from
  // then on; the authorization server then forgets the grant's codes and refresh tokens too.
  app.post<{ Params: { id: string } }>('/grants/:id/revoke', protectedForm, async (request, reply) => {
    await context.clients.identity.revokeGrant({ grantId: request.params.id }, await asUser(context, request));
    await context.authorizationServer?.Grant.adapter.revokeByGrantId(request.params.id);
    return reply.redirect(`/keys?revoked_grant=${encodeURIComponent(request.params.id)}`, 303);
  });
}
