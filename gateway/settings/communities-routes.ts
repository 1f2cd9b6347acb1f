// The communities screen's endpoints. Every call acts as the signed-in user: the communities
// service answers only the communities the user controls and refuses the others (403); identity
// reads and switches the user's own just-in-time consent, and that of an organization only for its
// owners and admins (another organization is 404).
import type { FastifyInstance } from 'fastify';
import { ConsentStatus } from '../../proto/gen/expertnet/communities/v1/communities_service.js';
import { withActorsInWords } from './actor-names.js';
import { communitiesScreen } from './communities-view.js';
import { requestersOf } from './consent-requesters.js';
import { asUser, type SettingsContext } from './context.js';
import { html, page } from './html.js';
import { jitConsentSection } from './jit-consent-view.js';
import { textProblem } from '../../services/kit/request-text.js';
import { PageError } from './page-error.js';
import { requireSession } from './session.js';
import { writesOffPath } from './writes-off-routes.js';

const QUEUE_PAGE_SIZE = 50;
/** How many decided requests the screen shows per community (newest first). */
const HISTORY_SIZE = 10;

/** What the page says after a change: fixed texts by code, so a crafted link cannot put words on the page. */
const DONE: Record<string, string> = {
  'writes-on': 'API writes are on: a new attestation version was recorded.',
  'writes-off': 'API writes are off: a new attestation version was recorded.',
  approved: 'The consent request was approved: a retry of that same write succeeds once within 24 hours; the same write again, or any other write, waits for your consent.',
  denied: 'The consent request was denied.',
  'jit-on': 'Just-in-time consent is on: a write to a community you own whose API writes are off now waits here for your approval.',
  'jit-off': 'Just-in-time consent is off: a write to a community you own whose API writes are off is refused, and nothing waits for you.',
  'org-jit-on': "Just-in-time consent is on for the organization: a write to a community it owns whose API writes are off now waits here for its managers' approval.",
  'org-jit-off': 'Just-in-time consent is off for the organization: a write to a community it owns whose API writes are off is refused, and nothing waits.',
};

export function registerCommunityRoutes(app: FastifyInstance, context: SettingsContext): void {
  const signedIn = { preHandler: requireSession(context) };
  const protectedForm = { preHandler: [requireSession(context), app.csrfProtection] };

  app.get<{ Querystring: { done?: string } }>('/communities', signedIn, async (request, reply) => {
    const options = await asUser(context, request);
    const [{ communities }, { user }, { organizations }] = await Promise.all([
      context.clients.communities.listControlledCommunities({ userId: request.user!.id }, options),
      context.clients.identity.getUser({ userId: request.user!.id }, options),
      context.clients.identity.listManagedOrganizations({ userId: request.user!.id }, options),
    ]);
    const list = (communityId: string, status: ConsentStatus, pageSize: number, newestFirst: boolean) =>
      context.clients.communities.listConsentRequests({ communityId, pageSize, pageToken: '', status, newestFirst }, options)
        .then((page) => page.requests);
    const items = await Promise.all(communities.map(async (controlled) => {
      const id = controlled.community!.id;
      const [pending, approved, denied] = await Promise.all([
        list(id, ConsentStatus.CONSENT_STATUS_PENDING, QUEUE_PAGE_SIZE, false),
        list(id, ConsentStatus.CONSENT_STATUS_APPROVED, HISTORY_SIZE, true),
        list(id, ConsentStatus.CONSENT_STATUS_DENIED, HISTORY_SIZE, true),
      ]);
      // Decided newest first: RFC 3339 times in UTC compare as text.
      const resolved = [...approved, ...denied].sort((a, b) => (b.resolvedAt ?? '').localeCompare(a.resolvedAt ?? '')).slice(0, HISTORY_SIZE);
      return { controlled, pending, resolved };
    }));
    const requesters = await requestersOf(context, request);
    const csrf = reply.generateCsrf();
    const done = typeof request.query.done === 'string' ? DONE[request.query.done] : undefined;
    return reply.type('text/html').send(page({
      title: 'Communities', user: request.user!, csrf, current: '/communities',
      ...(done && { notice: { kind: 'ok' as const, text: done } }),
      body: html`${jitConsentSection(user?.jitConsent ?? false, organizations, csrf)}${communitiesScreen(withActorsInWords(items, request.user!), requesters, csrf)}`,
    }));
  });

  app.post<{ Params: { id: string }; Body: { enabled?: string; attest?: string; confirm?: string } }>('/communities/:id/writes', protectedForm, async (request, reply) => {
    const enabled = request.body?.enabled === 'on';
    if (!enabled && request.body?.enabled !== 'off') throw new PageError(400, 'enabled must be on or off');
    if (enabled && request.body?.attest !== 'yes') throw new PageError(400, 'Tick the attestation to turn API writes on.');
    // Switching off is confirmed on a page of its own first (writes-off-routes.ts): unconfirmed, nothing changes.
    if (!enabled && request.body?.confirm !== 'yes') return reply.redirect(writesOffPath(request.params.id), 303);
    // The service records the user's id as the actor; the name is kept beside it, for a fellow manager to read.
    await context.clients.communities.setApiWrites(
      { communityId: request.params.id, enabled, actor: '', actorName: request.user!.name }, await asUser(context, request));
    return reply.redirect(`/communities?done=writes-${enabled ? 'on' : 'off'}`, 303);
  });

  app.post<{ Body: { enabled?: string; organization?: string } }>('/jit-consent', protectedForm, async (request, reply) => {
    const setting = request.body?.enabled;
    if (setting !== 'on' && setting !== 'off') throw new PageError(400, 'enabled must be on or off');
    const organization = request.body?.organization ?? '';
    if (typeof organization !== 'string') throw new PageError(400, 'organization must be one organization id');
    // Text the store cannot keep (a NUL sent as %00) is named by its form field (services/kit/request-text.ts).
    const problem = textProblem(organization);
    if (problem) throw new PageError(400, `organization: ${problem}`);
    // The signed-in user's own setting, or an organization's: the form names no user, and identity
    // re-checks that the user manages the organization.
    await context.clients.identity.setJitConsent(
      { userId: request.user!.id, enabled: setting === 'on', organizationId: organization }, await asUser(context, request));
    return reply.redirect(`/communities?done=${organization ? 'org-' : ''}jit-${setting}`, 303);
  });

  app.post<{ Params: { id: string }; Body: { decision?: string } }>('/consent/:id', protectedForm, async (request, reply) => {
    const decision = request.body?.decision;
    if (decision !== 'approve' && decision !== 'deny') throw new PageError(400, 'decision must be approve or deny');
    await context.clients.communities.resolveConsentRequest(
      { consentRequestId: request.params.id, approve: decision === 'approve', actor: '', actorName: request.user!.name }, await asUser(context, request));
    return reply.redirect(`/communities?done=${decision === 'approve' ? 'approved' : 'denied'}`, 303);
  });
}
