// The API keys screen's endpoints. Every call acts as the signed-in user: identity mints, lists and
// revokes only that user's own keys (a key of someone else is not found).
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ApiKey } from '../../proto/gen/expertnet/identity/v1/identity_service.js';
import { asUser, type SettingsContext } from './context.js';
import { html, page } from './html.js';
import { keysList, mintForm, revokeConfirmation, secretShownOnce } from './keys-view.js';
import { mintRequestOf, type MintForm } from './mint-form.js';
import { PageError } from './page-error.js';
import { requireSession } from './session.js';

const LIST_PAGE_SIZE = 100;

async function ownKeys(context: SettingsContext, request: FastifyRequest): Promise<ApiKey[]> {
  const { keys } = await context.clients.identity.listKeys({ userId: request.user!.id, pageSize: LIST_PAGE_SIZE, pageToken: '' }, await asUser(context, request));
  return keys;
}

export function registerKeyRoutes(app: FastifyInstance, context: SettingsContext): void {
  const signedIn = { preHandler: requireSession(context) };
  const protectedForm = { preHandler: [requireSession(context), app.csrfProtection] };

  app.get<{ Querystring: { revoked?: string } }>('/keys', signedIn, async (request, reply) => {
    const keys = await ownKeys(context, request);
    const revoked = typeof request.query.revoked === 'string' ? keys.find((k) => k.id === request.query.revoked) : undefined;
    const csrf = reply.generateCsrf();
    const notice = revoked ? { kind: 'ok' as const, text: `Key ${revoked.prefix}… was revoked: requests with it are refused.` } : undefined;
    return reply.type('text/html').send(page({
      title: 'API keys', user: request.user!, csrf, current: '/keys', ...(notice && { notice }),
      body: html`${keysList(keys)}${mintForm(csrf)}`,
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
    const key = (await ownKeys(context, request)).find((k) => k.id === request.params.id && !k.revokedAt);
    if (!key) throw new PageError(404, 'There is no active key of yours with that id.');
    const csrf = reply.generateCsrf();
    return reply.type('text/html').send(page({ title: 'Revoke key', user: request.user!, csrf, current: '/keys', body: revokeConfirmation(key, csrf) }));
  });

  app.post<{ Params: { id: string } }>('/keys/:id/revoke', protectedForm, async (request, reply) => {
    await context.clients.identity.revokeKey({ keyId: request.params.id }, await asUser(context, request));
    return reply.redirect(`/keys?revoked=${encodeURIComponent(request.params.id)}`, 303);
  });
}
