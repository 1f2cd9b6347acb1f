// The API keys screen: the list of the user's keys (newest first), the legacy keys of
// organizations the user manages (read-only, with revoke), the mint form (name, Read preset or
// Advanced, environment, expiry, an allowlist ticked from the user's reach; shown again with what
// was entered and the reason when refused), the secret shown once after minting or rolling, and
// the revoke confirmation. Roll and rename are key-actions-view.ts's.
// Tables never overflow the page: cells wrap anywhere (a long unbroken name included), a long name
// is shortened with the whole of it in its title, and at phone width each row is a stack of labelled
// cells (assets.ts).
import type { Community } from '../../proto/gen/expertnet/communities/v1/communities_service.js';
import type { ApiKey, OrganizationKeys } from '../../proto/gen/expertnet/identity/v1/identity_service.js';
import { DEFAULT_KEY_ENVIRONMENT, keyEnvironments, rateTiers } from '../../services/kit/enums.js';
import type { FormRefusal } from './form-refusal.js';
import { csrfField, html, Markup } from './html.js';
import { ADVANCED_SCOPES, EXPIRY_DAYS, list, scopeHint, single, type MintForm } from './mint-form.js';

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

/** The longest name a table shows whole; a longer one is shortened, the whole of it in its title. */
const SHOWN_NAME_LENGTH = 40;

/** A key's name as a table cell's content: shortened past SHOWN_NAME_LENGTH, whole in the title. */
export function shownName(key: ApiKey): Markup {
  if (!key.name) return html`<span class="hint">unnamed</span>`;
  const chars = [...key.name];
  if (chars.length <= SHOWN_NAME_LENGTH) return html`${key.name}`;
  return html`<span title="${key.name}">${chars.slice(0, SHOWN_NAME_LENGTH - 1).join('')}…</span>`;
}

/** The name (or prefix) a link of the row is for, read out after its verb. */
function labelOf(key: ApiKey): string {
  return key.name || key.prefix;
}

const expired = (key: ApiKey, now: number) => key.expiresAt !== undefined && Date.parse(key.expiresAt) <= now;

/** Active, revoked, expired, or active until an expiry (a rolled key: until its grace period ends). */
export function statusOf(key: ApiKey, now = Date.now()): string {
  if (key.revokedAt) return `revoked ${when(key.revokedAt)}`;
  if (expired(key, now)) return `expired ${when(key.expiresAt)}`;
  const replaced = key.replacedByKeyId ? 'rolled, ' : '';
  return key.expiresAt ? `${replaced}expires at ${when(key.expiresAt)}` : 'active';
}

/** What may still be done with a key: rename (until revoked), roll (when active and not rolled yet), revoke. */
function actionLinks(key: ApiKey, personal: boolean, now = Date.now()): Markup | string {
  if (key.revokedAt) return '';
  const id = encodeURIComponent(key.id);
  const label = html`<span class="visually-hidden"> ${labelOf(key)}</span>`;
  const live = !expired(key, now);
  return html`<ul class="actions">${personal ? html`<li><a href="/keys/${id}/rename">Rename${label}</a></li>` : ''}${
    personal && live && !key.replacedByKeyId ? html`<li><a href="/keys/${id}/roll">Roll${label}</a></li>` : ''}${
    html`<li><a href="/keys/${id}/revoke">Revoke${label}</a></li>`}</ul>`;
}

/** A cell with the column's name for the stacked rows of phone width. */
function cell(label: string, content: Markup | string | number): Markup {
  return html`<td data-label="${label}">${content}</td>`;
}

function keyRow(key: ApiKey, names: CommunityNames): Markup {
  return html`<tr>${cell('Name', shownName(key))}${cell('Prefix', html`<code>${key.prefix}…</code>`)}${cell('Environment', nameOr(key.environment, keyEnvironments))}
    ${cell('Scopes', key.scopes.join(', '))}${cell('Rate', `${nameOr(key.rateTier, rateTiers)}, ${key.requestedRate}/min asked`)}${cell('Allowlist', allowlistOf(key, names, 'all of your reach'))}
    ${cell('Created', when(key.createdAt))}${cell('Last used', when(key.lastUsedAt))}${cell('Status', statusOf(key))}${cell('Actions', actionLinks(key, true))}</tr>`;
}

const head = (columns: readonly string[]) => html`<thead><tr>${columns.map((c) => html`<th scope="col">${c}</th>`)}</tr></thead>`;

export function keysList(keys: readonly ApiKey[], names: CommunityNames): Markup {
  if (keys.length === 0) return html`<p>You have no API keys yet.</p>`;
  return html`<div class="table-wrap"><table class="keys"><caption class="visually-hidden">Your API keys, newest first</caption>
    ${head(['Name', 'Prefix', 'Environment', 'Scopes', 'Rate', 'Allowlist', 'Created', 'Last used', 'Status', 'Actions'])}
    <tbody>${keys.map((k) => keyRow(k, names))}</tbody></table></div>`;
}

function organizationKeyRow(key: ApiKey, names: CommunityNames): Markup {
  return html`<tr>${cell('Prefix', html`<code>${key.prefix}…</code>`)}${cell('Environment', nameOr(key.environment, keyEnvironments))}${cell('Scopes', key.scopes.join(', '))}
    ${cell('Allowlist', allowlistOf(key, names, 'every community of the organization'))}${cell('Created', when(key.createdAt))}${cell('Last used', when(key.lastUsedAt))}
    ${cell('Status', statusOf(key))}${cell('Action', actionLinks(key, false))}</tr>`;
}

/** Legacy organization-owned keys, read-only (revoke only), for the organizations the user manages. */
export function organizationKeysList(organizations: readonly OrganizationKeys[], names: CommunityNames): Markup | string {
  if (organizations.length === 0) return '';
  return html`<h2>Keys of organizations you manage</h2>
  <p class="hint">Legacy keys owned by an organization. They cannot be changed or created any more; as an owner or admin of the organization you may revoke them.</p>
  ${organizations.map((o) => html`<div class="table-wrap"><table class="keys"><caption>${o.organizationName} <span class="hint">(${o.organizationId})</span></caption>
    ${head(['Prefix', 'Environment', 'Scopes', 'Allowlist', 'Created', 'Last used', 'Status', 'Action'])}
    <tbody>${o.keys.map((k) => organizationKeyRow(k, names))}</tbody></table></div>`)}`;
}

function allowlistChoices(reach: readonly Community[], ticked: ReadonlySet<string>): Markup {
  if (reach.length === 0) {
    return html`<fieldset><legend>Community allowlist (optional)</legend>
      <p class="hint">You reach no community yet, so there is nothing to limit the key to.</p></fieldset>`;
  }
  return html`<fieldset aria-describedby="allowlist-hint"><legend>Community allowlist (optional)</legend>
      <p class="hint" id="allowlist-hint">Tick the communities the key may reach. None ticked: it reaches every community you reach.</p>
      ${reach.map((c) => html`<label><input type="checkbox" name="allowlist" value="${c.id}"${checkedIf(ticked.has(c.id))}> ${c.name} <span class="hint">(${c.id})</span></label>`)}
    </fieldset>`;
}

const checkedIf = (on: boolean) => (on ? new Markup(' checked') : '');

/**
 * The mint form, empty or with what was sent (`sent`) and why it was refused. The scope controls
 * cannot disagree: the Advanced scopes are offered under Advanced only (the script hides and
 * disables them while the Read preset is chosen; without it the server refuses ticked scopes under
 * the Read preset, with a message, and never drops them).
 */
export function mintForm(csrf: string, reach: readonly Community[], sent: MintForm = {}, refusal?: FormRefusal): Markup {
  const value = (name: string) => { try { return single(sent, name); } catch { return ''; } };
  const preset = value('preset') === 'advanced' ? 'advanced' : 'read';
  const scopes = new Set(list(sent.scopes));
  const environment = keyEnvironments.isName(value('environment')) ? value('environment') : DEFAULT_KEY_ENVIRONMENT;
  const expiry = value('expires_in_days') || '0';
  const invalid = (field: string) => (refusal?.field === field ? new Markup(' aria-invalid="true" aria-describedby="mint-error"') : '');
  const error = refusal
    ? html`<p class="notice error" role="alert" id="mint-error" tabindex="-1" autofocus>The key was not created: ${refusal.message}. What you entered is kept below.</p>`
    : '';
  return html`<h2 id="create-key">Create a key</h2>
  <form method="post" action="/keys" class="mint">${csrfField(csrf)}${error}
    <label for="key-name">Name (optional)</label>
    <p class="hint" id="key-name-hint">Up to 100 characters, to tell your keys apart, e.g. where it is used.</p>
    <input type="text" id="key-name" name="name" maxlength="100" autocomplete="off" aria-describedby="key-name-hint" value="${value('name')}"${invalid('name')}>
    <fieldset${invalid('scopes')}><legend>Scopes</legend>
      <label><input type="radio" name="preset" value="read"${checkedIf(preset === 'read')}> Read preset: search:read, profile:read, enrich:read</label>
      <label><input type="radio" name="preset" value="advanced"${checkedIf(preset === 'advanced')}> Advanced: choose each scope</label>
      <fieldset class="advanced-scopes"><legend>Advanced scopes</legend>
        <p class="hint">Under Advanced only; the Read preset has its own scopes.</p>
        ${ADVANCED_SCOPES.map((s) => html`<label><input type="checkbox" name="scopes" value="${s}"${checkedIf(scopes.has(s))}> ${s} <span class="hint">(${scopeHint(s)})</span></label>`)}
      </fieldset>
    </fieldset>
    <fieldset aria-describedby="environment-hint"><legend>Environment</legend>
      <p class="hint" id="environment-hint">Test and live keys read and write the same data and spend the same credits here: the prefix (svc_test_ or svc_live_) is only a label.</p>
      <label><input type="radio" name="environment" value="test"${checkedIf(environment === 'test')}> Test</label>
      <label><input type="radio" name="environment" value="live"${checkedIf(environment === 'live')}> Live</label>
    </fieldset>
    <label for="expires">Expires</label>
    <p class="hint" id="expires-hint">An expired key is refused, saying it expired. You can roll a key before then.</p>
    <select id="expires" name="expires_in_days" aria-describedby="expires-hint"${invalid('expires_in_days')}>
      ${EXPIRY_DAYS.map((d) => html`<option value="${d}"${expiry === String(d) ? new Markup(' selected') : ''}>${d === 0 ? 'Never' : `In ${d} days`}</option>`)}
    </select>
    ${allowlistChoices(reach, new Set(list(sent.allowlist)))}
    <label for="requested_rate">Requested rate (requests per minute)</label>
    <p class="hint" id="rate-hint">1 to 6000; empty means 60. Your tier caps what is granted.</p>
    <input type="number" id="requested_rate" name="requested_rate" min="1" max="6000" inputmode="numeric" aria-describedby="rate-hint" value="${value('requested_rate')}"${invalid('requested_rate')}>
    <p><button type="submit">Create key</button></p>
  </form>`;
}

/** What the created page says of the key: its name, prefix and scopes, and the key it replaces. */
function createdKey(key: ApiKey, replaced: ApiKey | undefined): Markup {
  const replacing = replaced
    ? html` It replaces <code>${replaced.prefix}…</code>, which ${replaced.revokedAt ? 'was revoked' : html`keeps working until ${when(replaced.expiresAt)}`}.`
    : '';
  const expiry = key.expiresAt ? html` It expires at ${when(key.expiresAt)}.` : '';
  return html`<p class="wrap">Key ${key.name ? html`<strong>${key.name}</strong> ` : ''}<code>${key.prefix}…</code> was created with ${key.scopes.join(', ')}.${expiry}${replacing}</p>`;
}

/** The created page once its secret was shown: it is not stored, so it cannot be shown again. */
export function secretAlreadyShown(key: ApiKey, replaced: ApiKey | undefined): Markup {
  return html`${createdKey(key, replaced)}
  <p class="notice ok" role="status">The secret of this key was already shown (it waits at most five minutes for this page); it is not stored and cannot be shown again. Nothing new was created.
  If you did not copy it, roll the key or revoke it.</p>
  <p><a href="/keys">Back to your keys</a></p>`;
}

export function secretShownOnce(key: ApiKey, secret: string, replaced?: ApiKey): Markup {
  return html`${createdKey(key, replaced)}
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
