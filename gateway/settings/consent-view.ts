// The consent page of the authorization server: which application asks, where it sends the
// answer, which resource it wants to act on and with which scopes, and Allow / Deny.
import { csrfField, html, type Markup } from './html.js';

export interface ConsentRequestView {
  uid: string;
  clientName: string;
  clientId: string;
  /** Where the answer goes: the redirect URI's origin. */
  redirectOrigin: string;
  /** What the token will be for: the REST API or the MCP server, by name, and its URL. */
  resourceName: string;
  resource: string;
  scopes: readonly string[];
}

const SCOPE_WORDS: Record<string, string> = {
  'search:read': 'search for experts in the communities you reach and in public profiles (searches are charged to you)',
  'profile:read': 'read the profiles and rosters of your communities',
  'enrich:read': 'read enrichment runs',
  'self:enrich': 'enrich your own profile (billable)',
  'member:write': 'add and remove members where API writes are on',
  'enrich:write': 'start enrichment runs of your communities (billable)',
};

export function consentPage(view: ConsentRequestView, csrf: string): Markup {
  const id = encodeURIComponent(view.uid);
  return html`<p><strong>${view.clientName}</strong> <span class="hint">(client <code>${view.clientId}</code>, answers go to
    <code>${view.redirectOrigin}</code>)</span> asks to act as you on the ${view.resourceName} (<code>${view.resource}</code>):</p>
    <ul>${view.scopes.map((s) => html`<li><code>${s}</code>: ${SCOPE_WORDS[s] ?? s}</li>`)}</ul>
    <p class="hint">It gets short-lived access tokens for this alone; you can disconnect it any time under API keys,
    and its tokens are refused from the next request on.</p>
    <form method="post" action="/authorize/${id}">${csrfField(csrf)}
      <button type="submit" name="decision" value="approve">Allow</button>
      <button type="submit" name="decision" value="deny" class="secondary">Deny</button></form>`;
}
