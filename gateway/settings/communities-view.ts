// The communities screen: for each community the user controls, its API-write setting with the
// attestation text and its version history, and its write-consent queue with approve and deny and
// the recent decisions (consent-queue-view.ts).
import type { ConsentRequest, ControlledCommunity } from '../../proto/gen/expertnet/communities/v1/communities_service.js';
import { consentHistory, consentQueue, type Requesters } from './consent-queue-view.js';
import { csrfField, html, type Markup } from './html.js';

function when(iso: string | undefined): string {
  return iso ? iso.replace('T', ' ').slice(0, 16) + ' UTC' : '';
}

/** The text a billing owner attests to when switching API writes on (recorded with who and when). */
export function attestationText(communityName: string): string {
  return `As billing owner of ${communityName}, I allow API keys that hold a write scope, and reach this community, ` +
    'to add and remove its members and start enrichment runs, charged to this community\'s billing owner.';
}

function writesForm(c: ControlledCommunity, csrf: string): Markup {
  const community = c.community!;
  const id = encodeURIComponent(community.id);
  if (community.apiWrites) {
    return html`<p>API writes are <strong>on</strong>.</p>
      <form method="post" action="/communities/${id}/writes">${csrfField(csrf)}<input type="hidden" name="enabled" value="off">
      <button type="submit" class="secondary">Turn API writes off</button></form>`;
  }
  return html`<p>API writes are <strong>off</strong>.</p>
    <form method="post" action="/communities/${id}/writes">${csrfField(csrf)}<input type="hidden" name="enabled" value="on">
    <label><input type="checkbox" name="attest" value="yes" required> ${attestationText(community.name)}</label>
    <button type="submit">Turn API writes on</button></form>`;
}

function history(c: ControlledCommunity): Markup {
  if (c.attestations.length === 0) return html`<p class="hint">No attestation was ever recorded.</p>`;
  return html`<div class="table-wrap"><table><caption>Attestation history of ${c.community!.name}</caption>
    <thead><tr><th scope="col">Version</th><th scope="col">API writes</th><th scope="col">By</th><th scope="col">When</th></tr></thead>
    <tbody>${c.attestations.map((a) => html`<tr><td>${a.version}</td><td>${a.enabled ? 'on' : 'off'}</td><td>${a.actor}</td><td>${when(a.recordedAt)}</td></tr>`)}</tbody></table></div>`;
}

export interface CommunityItem {
  controlled: ControlledCommunity;
  pending: readonly ConsentRequest[];
  /** The latest approved and denied requests, newest first. */
  resolved: readonly ConsentRequest[];
}

export function communitiesScreen(items: readonly CommunityItem[], requesters: Requesters, csrf: string): Markup {
  if (items.length === 0) return html`<p>You are not the billing owner of any community, nor manage an organization that owns one.</p>`;
  return html`${items.map(({ controlled, pending, resolved }) => html`<section aria-labelledby="c-${controlled.community!.id}">
    <h2 id="c-${controlled.community!.id}">${controlled.community!.name} <span class="hint">(${controlled.community!.id})</span></h2>
    ${writesForm(controlled, csrf)}
    <h3>Write-consent queue</h3>${consentQueue(pending, requesters, csrf)}
    ${consentHistory(controlled.community!.name, resolved, requesters)}
    ${history(controlled)}</section>`)}`;
}
