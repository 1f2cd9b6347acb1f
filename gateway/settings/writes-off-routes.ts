// The page that confirms switching a community's API writes off (writes-off-view.ts). The switch
// itself is the communities screen's POST, which sends a form without the confirmation here. As
// the signed-in user: the communities service lists only the communities they control.
import type { FastifyInstance } from 'fastify';
import { asUser, type SettingsContext } from './context.js';
import { page } from './html.js';
import { PageError } from './page-error.js';
import { requireSession } from './session.js';
import { writesOffConfirmation } from './writes-off-view.js';

/** Where the communities screen sends a switch-off that is not confirmed yet. */
export const writesOffPath = (communityId: string) => `/communities/${encodeURIComponent(communityId)}/writes/off`;

export function registerWritesOffRoutes(app: FastifyInstance, context: SettingsContext): void {
  app.get<{ Params: { id: string } }>('/communities/:id/writes/off', { preHandler: requireSession(context) }, async (request, reply) => {
    const { communities } = await context.clients.communities.listControlledCommunities({ userId: request.user!.id }, await asUser(context, request));
    const community = communities.map((c) => c.community!).find((c) => c.id === request.params.id && c.apiWrites);
    if (!community) throw new PageError(404, 'There is no community with that id whose API writes you may turn off.');
    const csrf = reply.generateCsrf();
    return reply.type('text/html').send(page({
      title: 'Turn API writes off?', user: request.user!, csrf, current: '/communities', body: writesOffConfirmation(community, csrf),
    }));
  });
}
