// The applications a user connected with OAuth, on the API keys screen, newest first: each grant
// with its client's registered name (the one the consent page showed; the client id beside it),
// scopes, rate, when it was created and last used, and a revoke link; and the revoke confirmation.
// Revoking a grant refuses every access token issued under it from the next request on.
import type { OAuthGrant } from '../../proto/gen/expertnet/identity/v1/identity_service.js';
import { rateTiers } from '../../services/kit/enums.js';
import { csrfField, html, type Markup } from './html.js';
import { nameOr, when } from './keys-view.js';

/** Client id → the name the client registered (grant-clients.ts); a client without one shows its id. */
export type ClientNames = ReadonlyMap<string, string>;

function application(grant: OAuthGrant, names: ClientNames): Markup {
  const name = names.get(grant.clientId);
  return name ? html`${name} <span class="hint">(<code>${grant.clientId}</code>)</span>` : html`<code>${grant.clientId}</code>`;
}

/** Newest first (identity lists them in id order): RFC 3339 times in UTC compare as text. */
const newestFirst = (a: OAuthGrant, b: OAuthGrant) => (b.createdAt ?? '').localeCompare(a.createdAt ?? '') || b.id.localeCompare(a.id);

function grantRow(grant: OAuthGrant, names: ClientNames): Markup {
  const status = grant.revokedAt ? `revoked ${when(grant.revokedAt)}` : 'active';
  const revoke = grant.revokedAt
    ? ''
    : html`<a href="/grants/${encodeURIComponent(grant.id)}/revoke">Revoke<span class="visually-hidden"> ${names.get(grant.clientId) ?? grant.clientId} ${grant.clientId}</span></a>`;
  return html`<tr><td>${application(grant, names)}</td><td>${grant.scopes.join(', ')}</td><td>${nameOr(grant.rateTier, rateTiers)}</td>
    <td>${when(grant.createdAt)}</td><td>${when(grant.lastUsedAt)}</td><td>${status}</td><td>${revoke}</td></tr>`;
}

export function grantsList(grants: readonly OAuthGrant[], names: ClientNames = new Map()): Markup {
  const body = grants.length === 0
    ? html`<p>No application is connected to your account.</p>`
    : html`<div class="table-wrap"><table><caption class="visually-hidden">Applications connected with OAuth</caption>
      <thead><tr><th scope="col">Application</th><th scope="col">Scopes</th><th scope="col">Rate</th><th scope="col">Connected</th>
      <th scope="col">Last used</th><th scope="col">Status</th><th scope="col">Action</th></tr></thead>
      <tbody>${[...grants].sort(newestFirst).map((g) => grantRow(g, names))}</tbody></table></div>`;
  return html`<h2>Connected applications</h2>
    <p class="hint">Applications, such as an AI assistant, that you allowed to act for you with OAuth access tokens instead of a key.</p>${body}`;
}

export function grantRevokeConfirmation(grant: OAuthGrant, csrf: string, names: ClientNames = new Map()): Markup {
  return html`<p>Disconnect ${application(grant, names)} (${grant.scopes.join(', ')})? Every access token it holds is refused
  from its very next request, and it must ask you again to connect. This cannot be undone.</p>
  <form method="post" action="/grants/${encodeURIComponent(grant.id)}/revoke">${csrfField(csrf)}
    <button type="submit" class="danger">Revoke access</button> <a href="/keys">Cancel</a></form>`;
}
