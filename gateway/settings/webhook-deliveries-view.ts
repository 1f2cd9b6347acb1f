// The delivery log on an endpoint's page (webhooks screen): each delivery, newest first, with its
// time, event (type and id), attempts, what happened (the receiver's status code, or why no answer
// came), latency and the first bytes of the answer, a link to its attempts and a Resend button; the
// Send test event button; and a delivery's own page, every attempt with its whole kept answer. The
// tables stack on a phone as the keys screen's do.
import type { WebhookDelivery, WebhookDeliveryAttempt, WebhookEndpoint } from '../../proto/gen/expertnet/communities/v1/communities_service.js';
import { csrfField, html, type Markup } from './html.js';
import { when } from './keys-view.js';

/** How much of an answer the table shows; the rest of the kept excerpt (1 KiB) is in its title. */
const SHOWN_ANSWER = 60;

const endpointPath = (endpointId: string) => `/webhooks/${encodeURIComponent(endpointId)}`;
const cell = (label: string, content: Markup | string | number) => html`<td data-label="${label}">${content}</td>`;

/** What the last attempt got: the status code, or the error when no answer came; the delivery's state. */
function outcome(delivery: WebhookDelivery): Markup | string {
  const last = delivery.lastAttempt;
  const got = last?.statusCode !== undefined ? String(last.statusCode) : (last?.error ?? delivery.error ?? '');
  const next = delivery.status === 'pending' && delivery.nextAttemptAt ? `, next attempt ${when(delivery.nextAttemptAt)}` : '';
  return html`${got}${got ? ' ' : ''}<span class="hint">(${delivery.status}${next})</span>`;
}

function answerOf(delivery: WebhookDelivery): Markup | string {
  const excerpt = delivery.lastAttempt?.responseExcerpt ?? '';
  if (!excerpt) return '';
  const chars = [...excerpt];
  if (chars.length <= SHOWN_ANSWER) return html`<code>${excerpt}</code>`;
  return html`<code title="${excerpt}">${chars.slice(0, SHOWN_ANSWER - 1).join('')}…</code>`;
}

const deliveryPath = (delivery: WebhookDelivery) => `${endpointPath(delivery.endpointId)}/deliveries/${encodeURIComponent(delivery.id)}`;

function resendForm(delivery: WebhookDelivery, csrf: string, enabled: boolean): Markup | string {
  if (!enabled) return '';
  return html`<form method="post" action="${deliveryPath(delivery)}/resend" class="inline">${csrfField(csrf)}
      <button type="submit" class="secondary">Resend<span class="visually-hidden"> ${delivery.eventType} ${delivery.eventId}</span></button></form>`;
}

function deliveryRow(delivery: WebhookDelivery, csrf: string, enabled: boolean): Markup {
  const resend = html`<a href="${deliveryPath(delivery)}">Attempts<span class="visually-hidden"> of ${delivery.eventType} ${delivery.eventId}</span></a> ${resendForm(delivery, csrf, enabled)}`;
  return html`<tr>${cell('Time', when(delivery.lastAttempt?.at ?? delivery.createdAt))}${cell('Event', html`${delivery.eventType} <code>${delivery.eventId}</code>`)}
    ${cell('Attempts', delivery.attempts)}${cell('Result', outcome(delivery))}${cell('Latency', delivery.lastAttempt ? `${delivery.lastAttempt.latencyMs} ms` : '')}
    ${cell('Answer', answerOf(delivery))}${cell('Action', resend)}</tr>`;
}

/** The log of the page shown (`next`: the token of older deliveries, when there are more). */
export function deliveryLog(endpoint: WebhookEndpoint, deliveries: readonly WebhookDelivery[], csrf: string, next: string): Markup {
  const enabled = endpoint.status === 'enabled';
  const test = enabled
    ? html`<form method="post" action="${endpointPath(endpoint.id)}/test">${csrfField(csrf)}
      <p><button type="submit">Send test event</button> <span class="hint">A webhook.test event, signed like any other, delivered now.</span></p></form>`
    : html`<p class="hint">A disabled endpoint receives nothing: enable it to send a test event or resend a delivery.</p>`;
  const table = deliveries.length === 0
    ? html`<p>No deliveries yet.</p>`
    : html`<div class="table-wrap"><table class="keys"><caption class="visually-hidden">Deliveries to this endpoint, newest first</caption>
      <thead><tr>${['Time', 'Event', 'Attempts', 'Result', 'Latency', 'Answer', 'Action'].map((c) => html`<th scope="col">${c}</th>`)}</tr></thead>
      <tbody>${deliveries.map((d) => deliveryRow(d, csrf, enabled))}</tbody></table></div>`;
  const older = next ? html`<p><a href="${endpointPath(endpoint.id)}?after=${encodeURIComponent(next)}">Older deliveries</a></p>` : '';
  return html`<h2 id="deliveries">Delivery log</h2>${test}${table}${older}`;
}

function attemptRow(attempt: WebhookDeliveryAttempt): Markup {
  return html`<tr>${cell('Attempt', attempt.attempt)}${cell('Time', when(attempt.at))}${cell('Status code', attempt.statusCode ?? '')}
    ${cell('Latency', `${attempt.latencyMs} ms`)}${cell('Error', attempt.error ?? '')}${cell('Answer', attempt.responseExcerpt ? html`<code>${attempt.responseExcerpt}</code>` : '')}</tr>`;
}

/** One delivery: its event, state, and every attempt, oldest first, with the whole kept answer (1 KiB). */
export function deliveryDetails(endpoint: WebhookEndpoint, delivery: WebhookDelivery, csrf: string): Markup {
  const next = delivery.status === 'pending' && delivery.nextAttemptAt ? html`<dt>Next attempt</dt><dd>${when(delivery.nextAttemptAt)}</dd>` : '';
  const attempts = delivery.attemptLog.length === 0
    ? html`<p>No attempt yet.</p>`
    : html`<div class="table-wrap"><table class="keys"><caption class="visually-hidden">Attempts of this delivery, oldest first</caption>
      <thead><tr>${['Attempt', 'Time', 'Status code', 'Latency', 'Error', 'Answer'].map((c) => html`<th scope="col">${c}</th>`)}</tr></thead>
      <tbody>${delivery.attemptLog.map(attemptRow)}</tbody></table></div>`;
  return html`<dl class="facts">
    <dt>Endpoint</dt><dd><code>${endpoint.url}</code></dd>
    <dt>Event</dt><dd>${delivery.eventType} <code>${delivery.eventId}</code></dd>
    <dt>State</dt><dd id="delivery-state">${delivery.status}</dd>${next}
    <dt>Queued</dt><dd>${when(delivery.createdAt)}</dd>
    ${delivery.error ? html`<dt>Why</dt><dd class="wrap">${delivery.error}</dd>` : ''}</dl>
  <h2>Attempts</h2>${attempts}<p>${resendForm(delivery, csrf, endpoint.status === 'enabled')}</p>
  <p><a href="${endpointPath(endpoint.id)}#deliveries">Back to the endpoint</a></p>`;
}
