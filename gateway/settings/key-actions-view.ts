// The pages of what a person does to one of their own keys besides revoking it: roll it (a new
// secret, the old one kept working for a grace period they choose) and rename it. Each form is
// shown again with what was entered and the reason when refused.
import type { ApiKey } from '../../proto/gen/expertnet/identity/v1/identity_service.js';
import { csrfField, html, Markup } from './html.js';
import { when } from './keys-view.js';

/** The grace periods a roll offers, in seconds, and what the form calls them. */
export const GRACE_CHOICES = [
  [0, 'None: the old secret stops working at once'],
  [3600, '1 hour'],
  [86_400, '24 hours'],
  [604_800, '7 days'],
] as const;

/** The grace period preselected: long enough to deploy the new secret, short enough to not forget. */
const DEFAULT_GRACE = 86_400;

function keyLabel(key: ApiKey): Markup {
  return html`${key.name ? html`<strong>${key.name}</strong> ` : ''}<code>${key.prefix}…</code>`;
}

function refusalOf(message: string | undefined): Markup | string {
  return message ? html`<p class="notice error" role="alert" id="form-error" tabindex="-1" autofocus>${message}</p>` : '';
}

export function rollForm(key: ApiKey, csrf: string, sent?: { grace: string; error: string }): Markup {
  const chosen = sent?.grace ?? String(DEFAULT_GRACE);
  const expiry = key.expiresAt ? html` The new key gets the same lifetime again, from now (this one expires at ${when(key.expiresAt)}).` : '';
  return html`<p class="wrap">Roll the key ${keyLabel(key)}: a new key with the same name, scopes, allowlist, environment and rate, and a new secret,
  shown once.${expiry} The old secret keeps working for the grace period you choose, so you can deploy the new one first.</p>
  <form method="post" action="/keys/${encodeURIComponent(key.id)}/roll">${csrfField(csrf)}${refusalOf(sent?.error)}
    <fieldset><legend>Grace period for the old secret</legend>
      ${GRACE_CHOICES.map(([seconds, label]) => html`<label><input type="radio" name="grace_seconds" value="${seconds}"${
        chosen === String(seconds) ? new Markup(' checked') : ''}> ${label}</label>`)}
    </fieldset>
    <p><button type="submit">Roll key</button> <a href="/keys">Cancel</a></p></form>`;
}

export function renameForm(key: ApiKey, csrf: string, sent?: { name: string; error: string }): Markup {
  const invalid = sent ? new Markup(' aria-invalid="true" aria-describedby="form-error"') : '';
  return html`<p class="wrap">A new name for the key ${keyLabel(key)}. Its secret and everything it may do stay as they are.</p>
  <form method="post" action="/keys/${encodeURIComponent(key.id)}/rename">${csrfField(csrf)}${refusalOf(sent?.error)}
    <label for="key-name">Name</label>
    <p class="hint" id="key-name-hint">Up to 100 characters; empty: unnamed.</p>
    <input type="text" id="key-name" name="name" maxlength="100" autocomplete="off" aria-describedby="key-name-hint" value="${sent?.name ?? key.name}"${invalid}>
    <p><button type="submit">Rename key</button> <a href="/keys">Cancel</a></p></form>`;
}
