// The API keys screen: the list of the user's keys, the mint form (Read preset or Advanced), the
// secret shown once after minting, and the revoke confirmation.
import type { ApiKey } from '../../proto/gen/expertnet/identity/v1/identity_service.js';
import { keyEnvironments, rateTiers } from '../../services/kit/enums.js';
import { csrfField, html, type Markup } from './html.js';
import { ADVANCED_SCOPES, scopeHint } from './mint-form.js';

function when(iso: string | undefined): string {
  return iso ? iso.replace('T', ' ').slice(0, 16) + ' UTC' : 'never';
}

function nameOr(value: number, names: { isName(v: unknown): boolean; toName(v: number): string }): string {
  try {
    return names.toName(value);
  } catch {
    return 'unknown';
  }
}

function keyRow(key: ApiKey): Markup {
  const allowlist = key.allowlist ? (key.allowlist.communityIds.join(', ') || 'reaches nothing') : 'all of your reach';
  const status = key.revokedAt ? `revoked ${when(key.revokedAt)}` : 'active';
  const action = key.revokedAt ? '' : html`<a href="/keys/${encodeURIComponent(key.id)}/revoke">Revoke<span class="visually-hidden"> ${key.prefix}</span></a>`;
  return html`<tr><td><code>${key.prefix}…</code></td><td>${nameOr(key.environment, keyEnvironments)}</td><td>${key.scopes.join(', ')}</td>
    <td>${nameOr(key.rateTier, rateTiers)}, ${key.requestedRate}/min asked</td><td>${allowlist}</td><td>${when(key.createdAt)}</td>
    <td>${when(key.lastUsedAt)}</td><td>${status}</td><td>${action}</td></tr>`;
}

export function keysList(keys: readonly ApiKey[]): Markup {
  if (keys.length === 0) return html`<p>You have no API keys yet.</p>`;
  return html`<div class="table-wrap"><table><caption class="visually-hidden">Your API keys</caption>
    <thead><tr><th scope="col">Prefix</th><th scope="col">Environment</th><th scope="col">Scopes</th><th scope="col">Rate</th>
    <th scope="col">Allowlist</th><th scope="col">Created</th><th scope="col">Last used</th><th scope="col">Status</th><th scope="col">Action</th></tr></thead>
    <tbody>${keys.map(keyRow)}</tbody></table></div>`;
}

export function mintForm(csrf: string): Markup {
  return html`<h2>Create a key</h2>
  <form method="post" action="/keys">${csrfField(csrf)}
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
    <label for="allowlist">Community allowlist (optional)</label>
    <p class="hint" id="allowlist-hint">Community ids separated by commas. Empty: the key reaches every community you reach.</p>
    <input type="text" id="allowlist" name="allowlist" aria-describedby="allowlist-hint">
    <label for="requested_rate">Requested rate (requests per minute)</label>
    <p class="hint" id="rate-hint">1 to 6000; empty means 60. Your tier caps what is granted.</p>
    <input type="number" id="requested_rate" name="requested_rate" min="1" max="6000" inputmode="numeric" aria-describedby="rate-hint">
    <p><button type="submit">Create key</button></p>
  </form>`;
}

export function secretShownOnce(key: ApiKey, secret: string): Markup {
  return html`<p>Key <code>${key.prefix}…</code> was created with ${key.scopes.join(', ')}.</p>
  <p class="notice ok" role="status"><strong>Copy the secret now: it is shown only this once and is not stored.</strong></p>
  <div class="secret"><code id="new-secret">${secret}</code>
    <button type="button" class="secondary" data-copy="new-secret">Copy secret</button>
    <span id="new-secret-status" role="status"></span></div>
  <p><a href="/keys">Back to your keys</a></p>`;
}

export function revokeConfirmation(key: ApiKey, csrf: string): Markup {
  return html`<p>Revoke the key <code>${key.prefix}…</code> (${key.scopes.join(', ')})?
  The very next request made with it is refused. This cannot be undone.</p>
  <form method="post" action="/keys/${encodeURIComponent(key.id)}/revoke">${csrfField(csrf)}
    <button type="submit" class="danger">Revoke key</button> <a href="/keys">Cancel</a></form>`;
}
