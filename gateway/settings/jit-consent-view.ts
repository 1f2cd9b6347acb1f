// The just-in-time consent switch on the communities screen: the signed-in user's own setting, which
// decides what a write to a community they own gets while its API writes are off (docs/COMMUNITIES.md).
import { csrfField, html, type Markup } from './html.js';

export function jitConsentSection(enabled: boolean, csrf: string): Markup {
  const next = enabled ? 'off' : 'on';
  return html`<section aria-labelledby="jit-heading"><h2 id="jit-heading">Just-in-time consent</h2>
    <p id="jit-explained" class="hint">For the communities whose billing owner is you. While a community's API writes are off, a
    write by an API key is refused (422 <code>unprocessable</code>). With just-in-time consent on, it is refused with 422
    <code>owner_consent_required</code> instead and waits in that community's write-consent queue below: once you approve it,
    a retry succeeds. Communities owned by an organization follow the organization's setting.</p>
    <p>Just-in-time consent is <strong>${enabled ? 'on' : 'off'}</strong>.</p>
    <form method="post" action="/jit-consent">${csrfField(csrf)}<input type="hidden" name="enabled" value="${next}">
      <button type="submit"${enabled ? html` class="secondary"` : ''} aria-describedby="jit-explained">Turn just-in-time consent ${next}</button></form></section>`;
}
