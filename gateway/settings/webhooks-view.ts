// The webhooks screen: the signed-in person's webhook endpoints (URL, events, status in words, why
// one is disabled), the add form (URL, event types ticked, description; shown again with what was
// entered and the reason when refused), the signing secret shown once after adding or rotating,
// an endpoint's page (its facts and actions; the delivery log is webhook-deliveries-view.ts's) and
// the delete confirmation. Tables stack on a phone as the keys screen's do.
import type { WebhookEndpoint } from '../../proto/gen/expertnet/communities/v1/communities_service.js';
import { EVENT_TYPES } from '../../services/kit/event-types.js';
import type { FormRefusal } from './form-refusal.js';
import { csrfField, html, Markup } from './html.js';
import { when } from './keys-view.js';
import { list, type MintForm } from './mint-form.js';

/** Why an endpoint receives nothing, in words; `Enabled` when it receives its events. */
export function statusWords(endpoint: Pick<WebhookEndpoint, 'status'> & { disabledReason?: string | undefined }): string {
  if (endpoint.status !== 'disabled') return 'Enabled';
  switch (endpoint.disabledReason) {
    case 'gone':
      return 'Disabled: the receiver answered 410 Gone';
    case 'failing':
      return 'Disabled after failing every retry for ~3 days';
    default:
      return 'Disabled by you';
  }
}

const endpointPath = (endpoint: Pick<WebhookEndpoint, 'id'>) => `/webhooks/${encodeURIComponent(endpoint.id)}`;
const cell = (label: string, content: Markup | string) => html`<td data-label="${label}">${content}</td>`;
const checkedIf = (on: boolean) => (on ? new Markup(' checked') : '');

export const WEBHOOKS_INTRO = html`<p class="hint">A webhook endpoint is an address of yours that receives the events you tick
  (a search finished, a run finished, a member added or erased), signed with its secret, instead of your program asking again and again.
  It receives only events of what you may read. The same endpoints are managed with the API (<code>/v1/webhook_endpoints</code>).</p>`;

function endpointRow(endpoint: WebhookEndpoint): Markup {
  return html`<tr>${cell('URL', html`<a href="${endpointPath(endpoint)}"><code>${endpoint.url}</code></a>`)}${cell('Events', endpoint.events.join(', '))}
    ${cell('Description', endpoint.description ?? '')}${cell('Status', statusWords(endpoint))}${cell('Created', when(endpoint.createdAt))}</tr>`;
}

export function endpointsList(endpoints: readonly WebhookEndpoint[]): Markup {
  if (endpoints.length === 0) return html`<p>You have no webhook endpoints yet.</p>`;
  return html`<div class="table-wrap"><table class="keys"><caption class="visually-hidden">Your webhook endpoints, newest first</caption>
    <thead><tr>${['URL', 'Events', 'Description', 'Status', 'Created'].map((c) => html`<th scope="col">${c}</th>`)}</tr></thead>
    <tbody>${endpoints.map(endpointRow)}</tbody></table></div>`;
}

/** The add form, empty or with what was sent and why it was refused. */
export function addForm(csrf: string, sent: MintForm = {}, refusal?: FormRefusal): Markup {
  const one = (name: string) => list(sent[name])[0] ?? '';
  const ticked = new Set(list(sent.events));
  const invalid = (field: string) => (refusal?.field === field ? new Markup(' aria-invalid="true" aria-describedby="add-error"') : '');
  const error = refusal
    ? html`<p class="notice error" role="alert" id="add-error" tabindex="-1" autofocus>The endpoint was not added: ${refusal.message}. What you entered is kept below.</p>`
    : '';
  return html`<h2 id="add-endpoint">Add an endpoint</h2>
  <form method="post" action="/webhooks" class="mint">${csrfField(csrf)}${error}
    <label for="wh-url">URL</label>
    <p class="hint" id="wh-url-hint">An https address on a public host, e.g. https://example.com/hooks (at most 2,048 characters).</p>
    <input type="text" id="wh-url" name="url" maxlength="2048" autocomplete="off" inputmode="url" aria-describedby="wh-url-hint" value="${one('url')}"${invalid('url')}>
    <fieldset${invalid('events')}><legend>Events it receives (at least one)</legend>
      ${EVENT_TYPES.map((t) => html`<label><input type="checkbox" name="events" value="${t}"${checkedIf(ticked.has(t))}> ${t}</label>`)}
    </fieldset>
    <label for="wh-description">Description (optional)</label>
    <p class="hint" id="wh-description-hint">Up to 500 characters, e.g. what receives it.</p>
    <input type="text" id="wh-description" name="description" maxlength="500" autocomplete="off" aria-describedby="wh-description-hint" value="${one('description')}"${invalid('description')}>
    <p><button type="submit">Add endpoint</button></p>
  </form>`;
}

/** The page after adding (or rotating): the secret once, or that it was shown already. */
export function secretPage(endpoint: WebhookEndpoint, secret: string | undefined, rotated: boolean): Markup {
  const intro = rotated
    ? html`<p class="wrap">The signing secret of <code>${endpoint.url}</code> was rotated. The old secret keeps signing deliveries beside the new one for 24 hours,
      so a receiver may switch to the new one meanwhile.</p>`
    : html`<p class="wrap">The endpoint <code>${endpoint.url}</code> was added for ${endpoint.events.join(', ')}.</p>`;
  const back = html`<p><a href="${endpointPath(endpoint)}">Go to the endpoint</a> · <a href="/webhooks">Back to your webhooks</a></p>`;
  if (!secret) {
    return html`${intro}<p class="notice ok" role="status">Its secret was already shown (it waits at most five minutes for this page); it is not stored
    for showing and cannot be shown again. If you did not copy it, rotate the secret.</p>${back}`;
  }
  return html`${intro}
  <p class="notice ok" role="status"><strong>Copy the signing secret now: it is shown only this once.</strong></p>
  <div class="secret"><code id="new-secret">${secret}</code>
    <button type="button" class="secondary" data-copy="new-secret">Copy secret</button>
    <span id="new-secret-status" role="status"></span></div>${back}`;
}

/** An endpoint's facts and what may be done with it (enable or disable, rotate, delete). */
export function endpointDetails(endpoint: WebhookEndpoint & { disabledReason?: string | undefined }, csrf: string): Markup {
  const path = endpointPath(endpoint);
  const enabled = endpoint.status === 'enabled';
  return html`<dl class="facts">
    <dt>URL</dt><dd><code>${endpoint.url}</code></dd>
    <dt>Events</dt><dd>${endpoint.events.join(', ')}</dd>
    <dt>Description</dt><dd class="wrap">${endpoint.description ?? html`<span class="hint">none</span>`}</dd>
    <dt>Status</dt><dd id="endpoint-status">${statusWords(endpoint)}</dd>
    <dt>Created</dt><dd>${when(endpoint.createdAt)}</dd>
    <dt>Id</dt><dd><code>${endpoint.id}</code></dd></dl>
  <form method="post" action="${path}/status" class="inline">${csrfField(csrf)}<input type="hidden" name="status" value="${enabled ? 'disabled' : 'enabled'}">
    <button type="submit"${enabled ? new Markup(' class="secondary"') : ''}>${enabled ? 'Disable' : 'Enable'}</button></form>
  <form method="post" action="${path}/rotate" class="inline">${csrfField(csrf)}<button type="submit" class="secondary">Rotate secret</button></form>
  <a href="${path}/delete">Delete</a>
  <p class="hint">Rotating makes a new signing secret, shown once; the old one keeps signing beside it for 24 hours.</p>`;
}

export function deleteConfirmation(endpoint: WebhookEndpoint, csrf: string): Markup {
  return html`<p class="wrap">Delete the endpoint <code>${endpoint.url}</code>? It receives no more events. This cannot be undone.</p>
  <form method="post" action="${endpointPath(endpoint)}/delete">${csrfField(csrf)}
    <button type="submit" class="danger">Delete endpoint</button> <a href="${endpointPath(endpoint)}">Cancel</a></form>`;
}
