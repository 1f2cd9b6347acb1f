// The confirmation before a community's API writes are switched off: what stops working, and a
// form that posts the switch with `confirm=yes` (communities-routes.ts refuses to switch off
// without it). A page of its own rather than a script's dialog: it works without script and under
// the CSP, and the keyboard reaches it as any page.
import type { Community } from '../../proto/gen/expertnet/communities/v1/communities_service.js';
import { csrfField, html, type Markup } from './html.js';

export function writesOffConfirmation(community: Community, csrf: string): Markup {
  return html`<p class="wrap">Turn API writes off for <strong>${community.name}</strong>? From the next request on, API keys
  and applications can no longer add or remove its members or start its enrichment runs; a write then waits for your consent
  when just-in-time consent is on, else it is refused. A new attestation version records who switched it off and when.
  You can turn API writes on again at any time.</p>
  <form method="post" action="/communities/${encodeURIComponent(community.id)}/writes">${csrfField(csrf)}
    <input type="hidden" name="enabled" value="off"><input type="hidden" name="confirm" value="yes">
    <p><button type="submit" class="danger">Yes, turn API writes off</button> <a href="/communities">Cancel</a></p></form>`;
}
