// A community's write-consent queue on the communities screen: each waiting write in words (the
// people to add, the member to erase, the run), who asked (key name and prefix), and Approve /
// Deny; then a short history of the approved and denied ones. Approving lets that very write
// through when retried (for a day); it never turns API writes on.
import type { ConsentRequest } from '../../proto/gen/expertnet/communities/v1/communities_service.js';
import { ConsentStatus } from '../../proto/gen/expertnet/communities/v1/communities_service.js';
import type { Requester } from './consent-requesters.js';
import { csrfField, html, type Markup } from './html.js';
import { when } from './keys-view.js';

export type Requesters = ReadonlyMap<string, Requester>;

function askedBy(r: ConsentRequest, requesters: Requesters): Markup {
  const who = requesters.get(r.requestedBy);
  if (!who) return html`credential <code>${r.requestedBy}</code>`;
  if (who.kind === 'application') return html`application <strong>${who.name}</strong> (grant <code>${r.requestedBy}</code>)`;
  return html`key <strong>${who.name}</strong> (<code>${who.prefix ?? ''}</code>)`;
}

/** The write in words; an older request without words shows its operation. */
function what(r: ConsentRequest): Markup {
  return html`<code>${r.operation}</code>${r.description ? html`: ${r.description}` : ''}`;
}

export function consentQueue(pending: readonly ConsentRequest[], requesters: Requesters, csrf: string): Markup {
  if (pending.length === 0) return html`<p class="hint">No write waits for your consent.</p>`;
  return html`<p class="hint">Approving lets that very write through once, when it is retried with the same request
    within 24 hours; the same write again, or any other write, waits here. To let every write through, turn API writes on above.</p>
    <ul class="queue">${pending.map((r) => html`<li>${what(r)} <span class="hint">— asked by ${askedBy(r, requesters)} at ${when(r.createdAt)}</span>
    <form method="post" action="/consent/${encodeURIComponent(r.id)}" class="inline">${csrfField(csrf)}
      <button type="submit" name="decision" value="approve">Approve<span class="visually-hidden"> ${r.operation} ${r.id}</span></button>
      <button type="submit" name="decision" value="deny" class="danger">Deny<span class="visually-hidden"> ${r.operation} ${r.id}</span></button></form></li>`)}</ul>`;
}

function outcome(r: ConsentRequest): Markup {
  if (r.status === ConsentStatus.CONSENT_STATUS_DENIED) return html`denied by ${r.resolvedBy} at ${when(r.resolvedAt)}`;
  const then = r.approvalUsedAt
    ? html`; the write went through at ${when(r.approvalUsedAt)}`
    : r.approvalExpiresAt ? html`; one retry succeeds until ${when(r.approvalExpiresAt)}` : '';
  return html`approved by ${r.resolvedBy} at ${when(r.resolvedAt)}${then}`;
}

export function consentHistory(communityName: string, resolved: readonly ConsentRequest[], requesters: Requesters): Markup {
  if (resolved.length === 0) return html``;
  return html`<div class="table-wrap"><table><caption>Recent consent decisions for ${communityName}</caption>
    <thead><tr><th scope="col">Write</th><th scope="col">Asked by</th><th scope="col">Decision</th></tr></thead>
    <tbody>${resolved.map((r) => html`<tr><td>${what(r)}</td><td>${askedBy(r, requesters)}</td><td>${outcome(r)}</td></tr>`)}</tbody></table></div>`;
}
