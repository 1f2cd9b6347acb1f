// The usage screen's endpoints: every call acts as the signed-in user, and identity answers only
// that user's own credentials (another user's key is not found: 404 here). Keys and applications
// are named as the person knows them: a key by its name, an application by its registered name.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { asUser, type SettingsContext } from './context.js';
import { clientNamesOf } from './grant-clients.js';
import { grantsOfUser } from './grant-list.js';
import { ownKeysOf } from './own-keys.js';
import { page } from './html.js';
import { requireSession } from './session.js';
import { usageScreen, type CredentialNames } from './usage-view.js';

/** The summary shows 30 days of every credential; one key's own page, the longest window identity keeps answering. */
const SUMMARY_DAYS = 30;
const SINGLE_KEY_DAYS = 90;

/** The names the person gave their keys and the names their applications registered, by credential id. */
async function credentialNames(context: SettingsContext, request: FastifyRequest): Promise<CredentialNames> {
  const [keys, grants] = await Promise.all([ownKeysOf(context, request), grantsOfUser(context, request)]);
  const clients = await clientNamesOf(context, grants);
  const names = new Map<string, string>();
  for (const key of keys) if (key.name) names.set(key.id, key.name);
  for (const grant of grants) {
    const client = clients.get(grant.clientId);
    if (client) names.set(grant.id, client);
  }
  return names;
}

export function registerUsageRoutes(app: FastifyInstance, context: SettingsContext): void {
  const signedIn = { preHandler: requireSession(context) };

  app.get('/usage', signedIn, async (request, reply) => {
    const [usage, names] = await Promise.all([
      context.clients.identity.getUsage({ userId: request.user!.id, days: SUMMARY_DAYS, keyId: '' }, await asUser(context, request)),
      credentialNames(context, request),
    ]);
    return reply.type('text/html').send(page({
      title: 'Usage', user: request.user!, csrf: reply.generateCsrf(), current: '/usage', body: usageScreen(usage, false, names),
    }));
  });

  app.get<{ Params: { id: string } }>('/usage/keys/:id', signedIn, async (request, reply) => {
    const [usage, names] = await Promise.all([
      context.clients.identity.getUsage({ userId: request.user!.id, days: SINGLE_KEY_DAYS, keyId: request.params.id }, await asUser(context, request)),
      credentialNames(context, request),
    ]);
    const key = usage.credentials[0]!;
    return reply.type('text/html').send(page({
      title: `Usage of key ${names.get(key.id) ?? `${key.label}…`}`, user: request.user!, csrf: reply.generateCsrf(), current: '/usage', body: usageScreen(usage, true, names),
    }));
  });
}
