// The authorization server's place in the settings app: oidc-provider answers under /oauth (and
// its RFC 8414 metadata at /.well-known/oauth-authorization-server/oauth), and its login and
// consent steps come here, to /authorize/:uid. The login step is the settings session: a signed-in
// user is the account (one who is not signs in first and comes back); the consent step shows the
// request — the Read preset, and every other scope the client asked for as an unticked choice
// (consent-scopes.ts) — and, when the user allows it, creates the grant in identity (as that user)
// with exactly the scopes chosen, and the provider's grant under the same id, so the tokens carry
// it (and only those scopes) and revoking it refuses them.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type Provider from 'oidc-provider';
import { OAUTH_PATH } from '../../services/kit/public-urls.js';
import { contentSecurityPolicy } from './csp.js';
import { registerClientCredentials } from './client-credentials.js';
import { consentScopesOf, grantedScopes } from './consent-scopes.js';
import { consentPage } from './consent-view.js';
import { asUser, type SettingsContext } from './context.js';
import { page } from './html.js';
import { logProviderFailures, traceOAuthAnswer } from './oauth-answers.js';
import { guardOAuthInput } from './oauth-input.js';
import { PageError } from './page-error.js';
import { currentUser } from './session.js';

/** OpenID scopes a client may ask for beside the API's (offline_access: a refresh token). */
const OPENID_SCOPES = ['openid', 'offline_access'];

type ProviderCallback = ReturnType<Provider['callback']>;

/** Hands a request to the provider (its path made relative to /oauth, as a mounted app sees it). */
function handOver(callback: ProviderCallback, request: FastifyRequest, reply: FastifyReply, path: string): void {
  traceOAuthAnswer(request, reply);
  reply.hijack();
  const raw = request.raw as FastifyRequest['raw'] & { originalUrl?: string };
  raw.originalUrl = `${OAUTH_PATH}${path}`;
  raw.url = path;
  void callback(raw, reply.raw);
}

type Interaction = Awaited<ReturnType<Provider['interactionDetails']>>;

/** The resources a consent is for: the one the client named, and those the provider still needs scopes for (its default). */
function resourcesOf(details: Interaction): string[] {
  const named = typeof details.params.resource === 'string' && details.params.resource ? [details.params.resource] : [];
  const missing = Object.keys((details.prompt.details.missingResourceScopes ?? {}) as Record<string, unknown>);
  return [...new Set([...named, ...missing])];
}

export function registerConsentRoutes(app: FastifyInstance, context: SettingsContext): void {
  const provider = context.authorizationServer;
  if (!provider) return;

  // Every request is checked before the provider reads it (oauth-input.ts).
  const callback = provider.callback();
  logProviderFailures(provider, app.log);
  void app.register(async (scope) => {
    guardOAuthInput(scope);
    // Service accounts' client-credentials grant is answered before the provider (client-credentials.ts).
    registerClientCredentials(scope, context, (request, reply) => handOver(callback, request, reply, '/token'));
    scope.all(OAUTH_PATH, (request, reply) => handOver(callback, request, reply, '/'));
    scope.all(`${OAUTH_PATH}/*`, (request, reply) => handOver(callback, request, reply, request.raw.url!.slice(OAUTH_PATH.length)));
    scope.get(`/.well-known/oauth-authorization-server${OAUTH_PATH}`, (request, reply) =>
      handOver(callback, request, reply, '/.well-known/openid-configuration'));
  });

  /** The interaction behind the page, or a page saying it is over. */
  async function interactionOf(request: FastifyRequest, reply: FastifyReply) {
    try {
      return await provider!.interactionDetails(request.raw, reply.raw);
    } catch {
      throw new PageError(400, 'This authorization request is over or unknown. Start again from the application.');
    }
  }

  app.get<{ Params: { uid: string } }>('/authorize/:uid', async (request, reply) => {
    const details = await interactionOf(request, reply);
    const user = await currentUser(context, request, reply);
    if (!user) return reply.redirect(`/sign-in?next=${encodeURIComponent(`/authorize/${request.params.uid}`)}`, 303);
    if (details.prompt.name === 'login' || details.session?.accountId !== user.id) {
      reply.hijack();
      await provider.interactionFinished(request.raw, reply.raw, { login: { accountId: user.id } }, { mergeWithLastSubmission: false });
      return reply;
    }
    const clientId = String(details.params.client_id);
    const client = await provider.Client.find(clientId);
    if (!client) throw new PageError(400, 'The application that asked is not registered any more. Start again from it.');
    const [resource = ''] = resourcesOf(details);
    const redirect = new URL(String(details.params.redirect_uri));
    // Where the answer goes: the registered redirect URI's origin, or an app's own scheme.
    const redirectTarget = /^https?:$/.test(redirect.protocol) ? redirect.origin : redirect.protocol;
    const csrf = reply.generateCsrf();
    // The answer to the form redirects to the client: its target joins this page's form-action, or
    // the browser stops there.
    reply.header('content-security-policy', contentSecurityPolicy([redirectTarget]));
    return reply.type('text/html').send(page({
      title: 'Connect an application', user, csrf, current: '/keys',
      body: consentPage({
        uid: request.params.uid,
        clientName: client.clientName ?? clientId,
        clientId,
        redirectOrigin: redirectTarget,
        resourceName: context.resourceNames?.[resource] ?? resource,
        resource,
        ...consentScopesOf(String(details.params.scope ?? '')),
      }, csrf),
    }));
  });

  app.post<{ Params: { uid: string }; Body: { decision?: string; scopes?: string | string[] } }>('/authorize/:uid', { preHandler: app.csrfProtection }, async (request, reply) => {
    const decision = request.body?.decision;
    if (decision !== 'approve' && decision !== 'deny') throw new PageError(400, 'decision must be approve or deny');
    const details = await interactionOf(request, reply);
    const user = await currentUser(context, request, reply);
    if (!user || details.session?.accountId !== user.id) throw new PageError(403, 'Sign in as the person this request is for, then start again.');
    request.user = user;
    let result;
    if (decision === 'deny') {
      result = { error: 'access_denied', error_description: 'the user denied the request' };
    } else {
      const clientId = String(details.params.client_id);
      // Exactly what was ticked (with the preset): the client sees the narrower scope in its token
      // response, as OAuth allows (RFC 6749 §3.3).
      const scopes = grantedScopes(String(details.params.scope ?? ''), request.body?.scopes);
      // The grant in identity (as the user: identity re-checks it is their own), then the
      // provider's under the same id: its tokens carry it as grant_id.
      const { grant } = await context.clients.identity.createGrant({ userId: user.id, scopes, clientId, requestedRate: 0 }, await asUser(context, request));
      // (The provider's models take a jti; its typings leave it out.)
      const providerGrant = new provider.Grant({ jti: grant!.id, accountId: user.id, clientId } as ConstructorParameters<typeof provider.Grant>[0]);
      // The API scopes are the provider's scopes too: granted at both levels, with the OpenID ones asked for.
      const openid = String(details.params.scope ?? '').split(' ').filter((s) => OPENID_SCOPES.includes(s));
      providerGrant.addOIDCScope([...openid, ...scopes].join(' '));
      for (const resource of resourcesOf(details)) providerGrant.addResourceScope(resource, scopes.join(' '));
      // What was asked and left unticked is rejected, not forgotten: the provider then issues the
      // narrower scope instead of asking for consent again.
      const { choices } = consentScopesOf(String(details.params.scope ?? ''));
      const left = choices.filter((s) => !scopes.includes(s)).join(' ');
      if (left) {
        providerGrant.rejectOIDCScope(left);
        for (const resource of resourcesOf(details)) providerGrant.rejectResourceScope(resource, left);
      }
      result = { consent: { grantId: await providerGrant.save() } };
    }
    reply.hijack();
    await provider.interactionFinished(request.raw, reply.raw, result, { mergeWithLastSubmission: true });
    return reply;
  });
}
