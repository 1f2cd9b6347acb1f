// The consent page of the authorization server: which application asks, where it sends the
// answer, which resource it wants to act on, the Read preset it gets with Allow, each other scope
// it asked for as an unticked choice (marked as on the keys screen's mint form), and Allow / Deny.
import type { Scope } from '../../services/kit/scopes.js';
import { csrfField, html, type Markup } from './html.js';
import { scopeHint } from './mint-form.js';

export interface ConsentRequestView {
  uid: string;
  clientName: string;
  clientId: string;
  /** Where the answer goes: the redirect URI's origin. */
  redirectOrigin: string;
  /** What the token will be for: the REST API or the MCP server, by name, and its URL. */
  resourceName: string;
  resource: string;
  /** Granted by Allow: the Read preset's scopes it asked for. */
  preset: readonly Scope[];
  /** Asked for beyond the preset: granted only when ticked. */
  choices: readonly Scope[];
}

const SCOPE_WORDS: Record<Scope, string> = {
  'search:read': 'search for experts in the communities you reach and in public profiles (searches are charged to you)',
  'profile:read': 'read the profiles and rosters of your communities',
  'enrich:read': 'read enrichment runs',
  'self:enrich': 'enrich your own profile (billable)',
  'member:write': 'add and remove members where API writes are on',
  'enrich:write': 'start enrichment runs of your communities (billable)',
  'webhooks:read': 'read the events of what you can read (searches, runs, rosters) and your webhook endpoints',
  'webhooks:write': 'add, change and remove your webhook endpoints',
};

export function consentPage(view: ConsentRequestView, csrf: string): Markup {
  const id = encodeURIComponent(view.uid);
  return html`<p><strong>${view.clientName}</strong> <span class="hint">(client <code>${view.clientId}</code>, answers go to
    <code>${view.redirectOrigin}</code>)</span> asks to act as you on the ${view.resourceName} (<code>${view.resource}</code>):</p>
    ${view.preset.length > 0 ? html`<p>With <strong>Allow</strong> it gets the Read preset:</p>
    <ul>${view.preset.map((s) => html`<li><code>${s}</code>: ${SCOPE_WORDS[s]}</li>`)}</ul>` : ''}
    <p class="hint">It gets short-lived access tokens for this alone; you can disconnect it any time under API keys,
    and its tokens are refused from the next request on.</p>
    <form method="post" action="/authorize/${id}">${csrfField(csrf)}
      ${view.choices.length > 0 ? html`<fieldset><legend>Advanced: it also asked for these; tick only what you want it to have</legend>
        ${view.choices.map((s) => html`<label><input type="checkbox" name="scopes" value="${s}"> <code>${s}</code>: ${SCOPE_WORDS[s]}
          <span class="hint">(${scopeHint(s)})</span></label>`)}</fieldset>` : ''}
      <button type="submit" name="decision" value="approve">Allow</button>
      <button type="submit" name="decision" value="deny" class="secondary">Deny</button></form>`;
}
