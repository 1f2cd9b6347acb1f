// The just-in-time consent switches on the communities screen: the signed-in user's own setting,
// which decides what a write to a community they own gets while its API writes are off, and that
// of each organization they own or administer, for the communities the organization owns
// (docs/COMMUNITIES.md).
import type { ManagedOrganization } from '../../proto/gen/expertnet/identity/v1/self_service.js';
import { csrfField, html, type Markup } from './html.js';

/** One switch: the setting in words and the button that flips it (`organization` names whose). */
function jitSwitch(label: Markup, enabled: boolean, csrf: string, organizationId?: string): Markup {
  const next = enabled ? 'off' : 'on';
  return html`<p>${label}: just-in-time consent is <strong>${enabled ? 'on' : 'off'}</strong>.</p>
    <form method="post" action="/jit-consent">${csrfField(csrf)}<input type="hidden" name="enabled" value="${next}">
      ${organizationId ? html`<input type="hidden" name="organization" value="${organizationId}">` : ''}
      <button type="submit"${enabled ? html` class="secondary"` : ''} aria-describedby="jit-explained">Turn just-in-time consent ${next}${organizationId ? html` for ${label}` : ''}</button></form>`;
}

export function jitConsentSection(enabled: boolean, organizations: readonly ManagedOrganization[], csrf: string): Markup {
  return html`<section aria-labelledby="jit-heading"><h2 id="jit-heading">Just-in-time consent</h2>
    <p id="jit-explained" class="hint">While a community's API writes are off, a write by an API key is refused (422
    <code>unprocessable</code>). With just-in-time consent on, it is refused with 422 <code>owner_consent_required</code>
    instead and waits in that community's write-consent queue below: once it is approved, a retry succeeds. A community
    you own follows your setting; one an organization owns follows the organization's, which its owners and admins switch.</p>
    ${jitSwitch(html`Your communities`, enabled, csrf)}
    ${organizations.map((o) => jitSwitch(html`${o.name}`, o.jitConsent, csrf, o.organizationId))}</section>`;
}
