// The service accounts screen: for each organization the signed-in user owns, its service accounts
// (name, client id, scopes, communities, times, status, revoke) and a form that creates one (name,
// scopes ticked one by one, at least one community ticked from the user's reach: never "all");
// the client secret shown once after creating; the revoke confirmation. Tables stack on a phone as
// the keys screen's do.
import type { Community } from '../../proto/gen/expertnet/communities/v1/communities_service.js';
import type { ManagedOrganization } from '../../proto/gen/expertnet/identity/v1/self_service.js';
import type { ServiceAccount } from '../../proto/gen/expertnet/identity/v1/service_accounts.js';
import { SCOPES } from '../../services/kit/scopes.js';
import type { FormRefusal } from './form-refusal.js';
import { csrfField, html, Markup } from './html.js';
import { when } from './keys-view.js';
import { list, scopeHint, type MintForm } from './mint-form.js';

/** Community names of the user's reach, by id. */
export type CommunityNames = ReadonlyMap<string, string>;

const cell = (label: string, content: Markup | string) => html`<td data-label="${label}">${content}</td>`;
const checkedIf = (on: boolean) => (on ? new Markup(' checked') : '');

function accountRow(account: ServiceAccount, names: CommunityNames): Markup {
  const revoke = account.revokedAt
    ? ''
    : html`<a href="/service-accounts/${encodeURIComponent(account.id)}/revoke">Revoke<span class="visually-hidden"> ${account.name}</span></a>`;
  return html`<tr>${cell('Name', account.name)}${cell('Client id', html`<code>${account.id}</code>`)}${cell('Scopes', account.scopes.join(', '))}
    ${cell('Communities', account.communityIds.map((id) => names.get(id) ?? id).join(', '))}${cell('Created', when(account.createdAt))}
    ${cell('Last token', when(account.lastUsedAt))}${cell('Status', account.revokedAt ? `revoked ${when(account.revokedAt)}` : 'active')}${cell('Action', revoke)}</tr>`;
}

/** One owned organization's accounts, newest first. */
export function organizationAccounts(organization: ManagedOrganization, accounts: readonly ServiceAccount[], names: CommunityNames): Markup {
  const newestFirst = [...accounts].sort((a, b) => (b.createdAt ?? '').localeCompare(a.createdAt ?? '') || b.id.localeCompare(a.id));
  const body = accounts.length === 0
    ? html`<p>No service account yet.</p>`
    : html`<div class="table-wrap"><table class="keys"><caption class="visually-hidden">Service accounts of ${organization.name}, newest first</caption>
      <thead><tr>${['Name', 'Client id', 'Scopes', 'Communities', 'Created', 'Last token', 'Status', 'Action'].map((c) => html`<th scope="col">${c}</th>`)}</tr></thead>
      <tbody>${newestFirst.map((a) => accountRow(a, names))}</tbody></table></div>`;
  return html`<h2>${organization.name} <span class="hint">(${organization.organizationId})</span></h2>${body}`;
}

export const SERVICE_ACCOUNTS_INTRO = html`<p class="hint">A service account lets a program of your organization call the gRPC API
  with its own credentials: its client id and secret get short-lived access tokens from this system's authorization server
  (OAuth client credentials). It may do only what its scopes allow, in the communities ticked for it, and the organization pays for it.</p>`;

/** The create form, empty or with what was sent and why it was refused. */
export function createForm(csrf: string, owned: readonly ManagedOrganization[], reach: readonly Community[], sent: MintForm = {}, refusal?: FormRefusal): Markup {
  const one = (name: string) => list(sent[name])[0] ?? '';
  const scopes = new Set(list(sent.scopes));
  const communities = new Set(list(sent.communities));
  const error = refusal
    ? html`<p class="notice error" role="alert" id="create-error" tabindex="-1" autofocus>The service account was not created: ${refusal.message}. What you entered is kept below.</p>`
    : '';
  const communityChoices = reach.length === 0
    ? html`<p class="hint">You reach no community yet: a service account needs at least one.</p>`
    : reach.map((c) => html`<label><input type="checkbox" name="communities" value="${c.id}"${checkedIf(communities.has(c.id))}> ${c.name} <span class="hint">(${c.id})</span></label>`);
  return html`<h2 id="create-service-account">Create a service account</h2>
  <form method="post" action="/service-accounts" class="mint">${csrfField(csrf)}${error}
    <label for="sa-organization">Organization (it owns the account and pays for it)</label>
    <select id="sa-organization" name="organization_id">
      ${owned.map((o) => html`<option value="${o.organizationId}"${one('organization_id') === o.organizationId ? new Markup(' selected') : ''}>${o.name}</option>`)}
    </select>
    <label for="sa-name">Name</label>
    <p class="hint" id="sa-name-hint">Up to 100 characters, e.g. the program that uses it.</p>
    <input type="text" id="sa-name" name="name" maxlength="100" required autocomplete="off" aria-describedby="sa-name-hint" value="${one('name')}">
    <fieldset><legend>Scopes</legend>
      ${SCOPES.map((s) => html`<label><input type="checkbox" name="scopes" value="${s}"${checkedIf(scopes.has(s))}> ${s} <span class="hint">(${scopeHint(s)})</span></label>`)}
    </fieldset>
    <fieldset aria-describedby="sa-communities-hint"><legend>Communities</legend>
      <p class="hint" id="sa-communities-hint">Tick each community it may reach: at least one. It never reaches every community.</p>
      ${communityChoices}
    </fieldset>
    <p><button type="submit">Create service account</button></p>
  </form>`;
}

export function secretShownOnce(account: ServiceAccount, secret: string | undefined): Markup {
  const intro = html`<p class="wrap">Service account <strong>${account.name}</strong> was created with ${account.scopes.join(', ')}.</p>
  <p>Client id: <code>${account.id}</code></p>`;
  if (!secret) {
    return html`${intro}<p class="notice ok" role="status">Its secret was already shown (it waits at most five minutes for this page); it is not stored and cannot be shown again.
    If you did not copy it, revoke the account and create another.</p><p><a href="/service-accounts">Back to service accounts</a></p>`;
  }
  return html`${intro}
  <p class="notice ok" role="status"><strong>Copy the secret now: it is shown only this once and is not stored.</strong></p>
  <div class="secret"><code id="new-secret">${secret}</code>
    <button type="button" class="secondary" data-copy="new-secret">Copy secret</button>
    <span id="new-secret-status" role="status"></span></div>
  <p><a href="/service-accounts">Back to service accounts</a></p>`;
}

export function revokeConfirmation(account: ServiceAccount, csrf: string): Markup {
  return html`<p>Revoke the service account <strong>${account.name}</strong> (<code>${account.id}</code>)? Its access tokens are refused from their
  very next call, and it gets no new one. This cannot be undone.</p>
  <form method="post" action="/service-accounts/${encodeURIComponent(account.id)}/revoke">${csrfField(csrf)}
    <button type="submit" class="danger">Revoke service account</button> <a href="/service-accounts">Cancel</a></form>`;
}
