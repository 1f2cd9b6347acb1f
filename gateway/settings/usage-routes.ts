// The usage screen's endpoints: every call acts as the signed-in user, and identity answers only
// that user's own credentials (another user's key is not found: 404 here).
import type { FastifyInstance } from 'fastify';
import { asUser, type SettingsContext } from './context.js';
import { page } from './html.js';
import { requireSession } from './session.js';
import { usageScreen } from './usage-view.js';

/** The summary shows 30 days of every credential; one key's own page, the longest window identity keeps answering. */
const SUMMARY_DAYS = 30;
const SINGLE_KEY_DAYS = 90;

export function registerUsageRoutes(app: FastifyInstance, context: SettingsContext): void {
  const signedIn = { preHandler: requireSession(context) };

  app.get('/usage', signedIn, async (request, reply) => {
    const usage = await context.clients.identity.getUsage({ userId: request.user!.id, days: SUMMARY_DAYS, keyId: '' }, await asUser(context, request));
    return reply.type('text/html').send(page({
      title: 'Usage', user: request.user!, csrf: reply.generateCsrf(), current: '/usage', body: usageScreen(usage, false),
    }));
  });

  app.get<{ Params: { id: string } }>('/usage/keys/:id', signedIn, async (request, reply) => {
    const usage = await context.clients.identity.getUsage(
      { userId: request.user!.id, days: SINGLE_KEY_DAYS, keyId: request.params.id }, await asUser(context, request));
    const key = usage.credentials[0]!;
    return reply.type('text/html').send(page({
      title: `Usage of key ${key.label}…`, user: request.user!, csrf: reply.generateCsrf(), current: '/usage', body: usageScreen(usage, true),
    }));
  });
}
