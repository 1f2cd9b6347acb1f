// The webhooks screen's endpoints (the views are webhooks-view.ts). Every call acts as the signed-in
// user: the communities service keeps, lists and changes only that user's own endpoints (another
// owner's is not found, so the page answers 404) and checks each URL (https, a public host).
// Adding and rotating are post/redirect/get like minting a key: the POST keeps the new signing
// secret for one showing (secret-flash.ts) and answers 303 to the page that shows it, so a reload
// never adds or rotates again. A refused add form is the screen again with the reason and what was
// entered. Every form is CSRF-protected (csrf.ts).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { asUser, type SettingsContext } from './context.js';
import { formRefusalOf, type FormRefusal } from './form-refusal.js';
import { html, page } from './html.js';
import { FormError, single, type MintForm } from './mint-form.js';
import { ownEndpoint } from './own-webhook-endpoint.js';
import { createSecretFlash } from './secret-flash.js';
import { requireSession } from './session.js';
import { deliveryLogOf, registerWebhookDeliveryRoutes } from './webhook-deliveries-routes.js';
import { createRequestOf } from './webhook-form.js';
import { addForm, deleteConfirmation, endpointDetails, endpointsList, secretPage, WEBHOOKS_INTRO } from './webhooks-view.js';

type EndpointParams = { Params: { id: string } };

/** What the endpoint page says after an action it was sent back from. */
const DONE: Record<string, string> = {
  enabled: 'The endpoint was enabled: it receives its events again.',
  disabled: 'The endpoint was disabled: it receives no events until you enable it.',
  test: 'A test event was queued: its delivery shows in the log below (reload to see its answer).',
  resent: 'The delivery was queued again: its new attempt shows in the log below (reload to see its answer).',
};

/** An add form refused: what was sent, and why. */
type Refused = { sent: MintForm; refusal: FormRefusal };

/** The screen; after a deletion, saying so; after a refused add, with what was sent and why (4xx). */
async function screen(context: SettingsContext, request: FastifyRequest, reply: FastifyReply, deleted?: unknown, refused?: Refused) {
  const { endpoints } = await context.clients.communities.listWebhookEndpoints({}, await asUser(context, request));
  const csrf = reply.generateCsrf();
  return reply.code(refused?.refusal.status ?? 200).type('text/html').send(page({
    title: 'Webhooks', user: request.user!, csrf, current: '/webhooks',
    ...(typeof deleted === 'string' && { notice: { kind: 'ok' as const, text: 'The endpoint was deleted: it receives no more events.' } }),
    body: html`${WEBHOOKS_INTRO}${endpointsList(endpoints)}${addForm(csrf, refused?.sent, refused?.refusal)}`,
  }));
}

export function registerWebhookRoutes(app: FastifyInstance, context: SettingsContext): void {
  // Adding and rotating keep the new secret here for the one page that shows it.
  const flash = createSecretFlash(app, context);
  const signedIn = { preHandler: requireSession(context) };
  const protectedForm = { preHandler: [requireSession(context), app.csrfProtection] };

  app.get<{ Querystring: { deleted?: string } }>('/webhooks', signedIn, async (request, reply) => screen(context, request, reply, request.query.deleted));

  app.post<{ Body: MintForm }>('/webhooks', protectedForm, async (request, reply) => {
    const sent = request.body ?? {};
    let created;
    try {
      created = (await context.clients.communities.createWebhookEndpoint(createRequestOf(sent), await asUser(context, request))).endpoint!;
    } catch (error) {
      return screen(context, request, reply, undefined, { sent, refusal: formRefusalOf(error) });
    }
    flash.keep(request, reply, created.id, created.secret!);
    return reply.redirect(`/webhooks/${encodeURIComponent(created.id)}/created`, 303);
  });

  // The new secret once (after adding, or rotating); a reload says it was shown.
  for (const [step, rotated] of [['created', false], ['rotated', true]] as const) {
    app.get<EndpointParams>(`/webhooks/:id/${step}`, signedIn, async (request, reply) => {
      const endpoint = await ownEndpoint(context, request, request.params.id);
      return reply.type('text/html').header('cache-control', 'no-store').send(page({
        title: rotated ? 'Secret rotated' : 'Endpoint added', user: request.user!, csrf: reply.generateCsrf(), current: '/webhooks',
        body: secretPage(endpoint, flash.take(request, reply, endpoint.id), rotated),
      }));
    });
  }

  app.get<EndpointParams & { Querystring: { done?: string; after?: string } }>('/webhooks/:id', signedIn, async (request, reply) => {
    const endpoint = await ownEndpoint(context, request, request.params.id);
    const csrf = reply.generateCsrf();
    const done = typeof request.query.done === 'string' ? DONE[request.query.done] : undefined;
    return reply.type('text/html').send(page({
      title: 'Webhook endpoint', user: request.user!, csrf, current: '/webhooks', ...(done && { notice: { kind: 'ok' as const, text: done } }),
      body: html`${endpointDetails(endpoint, csrf)}${await deliveryLogOf(context, request, endpoint, csrf, request.query.after)}<p><a href="/webhooks">Back to your webhooks</a></p>`,
    }));
  });

  app.post<EndpointParams & { Body: MintForm }>('/webhooks/:id/status', protectedForm, async (request, reply) => {
    const status = single(request.body ?? {}, 'status');
    if (status !== 'enabled' && status !== 'disabled') throw new FormError('status: must be enabled or disabled', 'status');
    await context.clients.communities.updateWebhookEndpoint(
      { endpointId: request.params.id, status, updateEvents: false, events: [] }, await asUser(context, request));
    return reply.redirect(`/webhooks/${encodeURIComponent(request.params.id)}?done=${status}`, 303);
  });

  app.post<EndpointParams>('/webhooks/:id/rotate', protectedForm, async (request, reply) => {
    const rotated = (await context.clients.communities.rotateWebhookSecret({ endpointId: request.params.id }, await asUser(context, request))).endpoint!;
    flash.keep(request, reply, rotated.id, rotated.secret!);
    return reply.redirect(`/webhooks/${encodeURIComponent(rotated.id)}/rotated`, 303);
  });

  app.get<EndpointParams>('/webhooks/:id/delete', signedIn, async (request, reply) => {
    const endpoint = await ownEndpoint(context, request, request.params.id);
    const csrf = reply.generateCsrf();
    return reply.type('text/html').send(page({ title: 'Delete endpoint', user: request.user!, csrf, current: '/webhooks', body: deleteConfirmation(endpoint, csrf) }));
  });

  app.post<EndpointParams>('/webhooks/:id/delete', protectedForm, async (request, reply) => {
    await context.clients.communities.deleteWebhookEndpoint({ endpointId: request.params.id }, await asUser(context, request));
    return reply.redirect(`/webhooks?deleted=${encodeURIComponent(request.params.id)}`, 303);
  });

  registerWebhookDeliveryRoutes(app, context);

}
