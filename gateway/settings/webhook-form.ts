// The add form of the webhooks screen turned into a CreateWebhookEndpointRequest. It is checked
// with the REST API's own schema (gateway/core/contract/webhook-endpoints.ts), so the form refuses
// exactly what POST /v1/webhook_endpoints refuses, with the same words, naming the field; the
// communities service then checks the address (https, a public host) and answers its own 400.
import type { CreateWebhookEndpointRequest } from '../../proto/gen/expertnet/communities/v1/communities_service.js';
import { CreateWebhookEndpointRequest as Schema } from '../core/contract/webhook-endpoints.js';
import { FormError, list, refuseUnstorableText, single, type MintForm } from './mint-form.js';

const FIELDS = ['url', 'events', 'description'] as const;

export function createRequestOf(form: MintForm): CreateWebhookEndpointRequest {
  refuseUnstorableText(form);
  const url = single(form, 'url');
  if (!url) throw new FormError('url: give the address that receives the events', 'url');
  const description = single(form, 'description');
  const events = list(form.events);
  if (events.length === 0) throw new FormError('events: tick at least one event type', 'events');
  const parsed = Schema.safeParse({ url, events, ...(description && { description }) });
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const field = FIELDS.find((f) => f === issue.path[0]);
    throw new FormError(`${field ?? 'form'}: ${issue.message}`, field);
  }
  return { url: parsed.data.url, events: parsed.data.events, description: parsed.data.description };
}
