// The API keys screen: the list of the user's keys, the legacy keys of organizations the user
// manages (read-only, with revoke), the mint form (name, Read preset or Advanced, an allowlist
// ticked from the user's reach), the secret shown once after minting, and the revoke confirmation.
import type { Community } from '../../proto/gen/expertnet/communities/v1/communities_service.js';
import type { ApiKey, OrganizationKeys } from '../../proto/gen/expertnet/identity/v1/identity_service.js';
import { keyEnvironments, rateTiers } from '../../services/kit/enums.js';
import { csrfField, html, type Markup } from './html.js';
import { ADVANCED_SCOPES, scopeHint } from './mint-form.js';

/** A timestamp to the minute, in UTC; `never` when there is none. */
export function when(iso: string | undefined): string {
  return iso ? iso.replace('T', ' ').slice(0, 16) + ' UTC' : 'never';
}

/** An enum value's name, or `unknown`. */
export function nameOr(value: number, names: { isName(v: unknown): boolean; toName(v: number): string }): string {
  try {
    return names.toName(value);
  } catch {
    return 'unknown';
  }
}

/** Community names of the user's reach, by id: a key's allowlist is shown by name where known. */
export type CommunityNames = ReadonlyMap<string, string>;

function allowlistOf(key: ApiKey, names: CommunityNames, everything: string): string {
  if (!key.allowlist) return everything;
  if (key.allowlist.communityIds.length === 0) return 'reaches nothing';
  return key.allowlist.communityIds.map((id) => names.get(id) ?? id).join(', ');
}

function revokeLink(key: ApiKey): Markup | string {
  const label = key.name || key.prefix;
  return key.revokedAt ? '' : html`<a href="/keys/${encodeURIComponent(key.id)}/revoke">Revoke<span class="visually-hidden"> ${label}</span></a>`;
}

function keyRow(key: ApiKey, names: CommunityNames): Markup {
  const status = key.revokedAt ? `revoked ${when(key.revokedAt)}` : 'active';
  return html`<tr><td>${key.name || html`<span class="hint">unnamed</span>`}</td><td><code>${key.prefix}…</code></td><td>${nameOr(key.environment, keyEnvironments)}</td><td>${key.scopes.join(', ')}</td>
    <td>${nameOr(key.rateTier, rateTiers)}, ${key.requestedRate}/min asked</td><td>${allowlistOf(key, names, 'all of your reach')}</td><td>${when(key.createdAt)}</td>
    <td>${when(key.lastUsedAt)}</td><td>${status}</td><td>${revokeLink(key)}</td></tr>`;
}

export function keysList(keys: readonly ApiKey[], names: CommunityNames): Markup {
  if (keys.length === 0) return html`<p>You have no API keys yet.</p>`;
  return html`<div class="table-wrap"><table><caption class="visually-hidden">Your API keys</caption>
    <thead><tr><th scope="col">Name</th><th scope="col">Prefix</th><th scope="col">Environment</th><th scope="col">Scopes</th><th scope="col">Rate</th>
    <th scope="col">Allowlist</th><th scope="col">Created</th><th scope="col">Last used</th><th scope="col">Status</th><th scope="col">Action</th></tr></thead>
    <tbody>${keys.map((k) => keyRow(k, names))}</tbody></table></div>`;
}

function organizationKeyRow(key: ApiKey, names: CommunityNames): Markup {
  const status = key.revokedAt ? `revoked ${when(key.revokedAt)}` : 'active';
  return html`<tr><td><code>${key.prefix}…</code></td><td>${nameOr(key.environment, keyEnvironments)}</td><td>${key.scopes.join(', ')}</td>
    <td>${allowlistOf(key, names, 'every community of the organization')}</td><td>${when(key.createdAt)}</td><td>${when(key.lastUsedAt)}</td><td>${status}</td><td>${revokeLink(key)}</td></tr>`;
}

/** Legacy organization-owned keys, read-only (revoke only), for the organizations the user manages. */
export function organizationKeysList(organizations: readonly OrganizationKeys[], names: CommunityNames): Markup | string {
  if (organizations.length === 0) return '';
  return html`<h2>Keys of organizations you manage</h2>
  <p class="hint">Legacy keys owned by an organization. They cannot be changed or created any more; as an owner or admin of the organization you may revoke them.</p>
  ${organizations.map((o) => html`<div class="table-wrap"><table><caption>${o.organizationName} <span class="hint">(${o.organizationId})</span></caption>
    <thead><tr><th scope="col">Prefix</th><th scope="col">Environment</th><th scope="col">Scopes</th><th scope="col">Allowlist</th>
    <th scope="col">Created</th><th scope="col">Last used</th><th scope="col">Status</th><th scope="col">Action</th></tr></thead>
    <tbody>${o.keys.map((k) => organizationKeyRow(k, names))}</tbody></table></div>`)}`;
}

function allowlistChoices(reach: readonly Community[]): Markup {
  if (reach.length === 0) {
    return html`<fieldset><legend>Community allowlist (optional)</legend>
      <p class="hint">You reach no community yet, so there is nothing to limit the key to.</p></fieldset>`;
  }
  return html`<fieldset aria-describedby="allowlist-hint"><legend>Community allowlist (optional)</legend>
      <p class="hint" id="allowlist-hint">Tick the communities the key may reach. None ticked: it reaches every community you reach.</p>
      ${reach.map((c) => html`<label><input type="checkbox" name="allowlist" value="${c.id}"> ${c.name} <span class="hint">(${c.id})</span></label>`)}
    </fieldset>`;
}

export function mintForm(csrf: string, reach: readonly Community[]): Markup {
  return html`<h2>Create a key</h2>
  <form method="post" action="/keys">${csrfField(csrf)}
    <label for="key-name">Name (optional)</label>
    <p class="hint" id="key-name-hint">Up to 100 characters, to tell your keys apart, e.g. where it is used.</p>
    <input type="text" id="key-name" name="name" maxlength="100" autocomplete="off" aria-describedby="key-name-hint">
    <fieldset><legend>Scopes</legend>
      <label><input type="radio" name="preset" value="read" checked> Read preset: search:read, profile:read, enrich:read</label>
      <label><input type="radio" name="preset" value="advanced"> Advanced: choose each scope below</label>
      <fieldset><legend>Advanced scopes</legend>
        ${ADVANCED_SCOPES.map((s) => html`<label><input type="checkbox" name="scopes" value="${s}"> ${s} <span class="hint">(${scopeHint(s)})</span></label>`)}
      </fieldset>
    </fieldset>
    <fieldset><legend>Environment</legend>
      <label><input type="radio" name="environment" value="live" checked> Live</label>
      <label><input type="radio" name="environment" value="test"> Test</label>
    </fieldset>
    ${allowlistChoices(reach)}
    <label for="requested_rate">Requested rate (requests per minute)</label>
    <p class="hint" id="rate-hint">1 to 6000; empty means 60. Your tier caps what is granted.</p>
    <input type="number" id="requested_rate" name="requested_rate" min="1" max="6000" inputmode="numeric" aria-describedby="rate-hint">
    <p><button type="submit">Create key</button></p>
  </form>`;
}

export function secretShownOnce(key: ApiKey, secret: string): Markup {
  return html`<p>Key ${key.name ? html`<strong>${key.name}</strong> ` : ''}<code>${key.prefix}…</code> was created with ${key.scopes.join(', ')}.</p>
  <p class="notice ok" role="status"><strong>Copy the secret now: it is shown only this once and is not stored.</strong></p>
  <div class="secret"><code id="new-secret">${secret}</code>
    <button type="button" class="secondary" data-copy="new-secret">Copy secret</button>
    <span id="new-secret-status" role="status"></span></div>
  <p><a href="/keys">Back to your keys</a></p>`;
}

export function revokeConfirmation(key: ApiKey, csrf: string, organizationName?: string): Markup {
  const whose = organizationName ? html` of the organization <strong>${organizationName}</strong>` : '';
  return html`<p>Revoke the key ${key.name ? html`<strong>${key.name}</strong> ` : ''}<code>${key.prefix}…</code>${whose} (${key.scopes.join(', ')})?
  The very next request made with it is refused. This cannot be undone.</p>
  <form method="post" action="/keys/${encodeURIComponent(key.id)}/revoke">${csrfField(csrf)}
    <button type="submit" class="danger">Revoke key</button> <a href="/keys">Cancel</a></form>`;
}
