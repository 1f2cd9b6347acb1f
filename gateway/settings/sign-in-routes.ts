// Sign-in with a one-time link, and sign-out. Opening the link shows a button instead of signing in
// at once: a mail scanner or link preview that fetches the URL does not use up the link. Redeeming
// it opens a new session (the previous one, if any, ends: the id rotates at sign-in).
import type { FastifyInstance } from 'fastify';
import { isLoggedAsOutage } from '../core/api-error.js';
import { asEdge, type SettingsContext } from './context.js';
import { sameOriginForm } from './csrf.js';
import { csrfField, html, page } from './html.js';
import { PageError } from './page-error.js';
import { afterSignIn, clearSessionCookie, rememberReturn, sessionIdOf, setSessionCookie } from './session.js';

export function registerSignInRoutes(app: FastifyInstance, context: SettingsContext): void {
  app.get('/', async (_request, reply) => reply.redirect('/keys', 303));

  app.get<{ Querystring: { expired?: string; next?: string } }>('/sign-in', async (request, reply) => {
    rememberReturn(context, reply, request.query.next);
    const notice = request.query.expired === '1' ? { kind: 'error' as const, text: 'Your session ended. Sign in again.' } : undefined;
    const provider = context.oidc
      ? html`<p><a class="button" href="/sign-in/oidc">Sign in with ${context.oidc.settings.name}</a></p><p>Or:</p>`
      : '';
    return reply.type('text/html').send(page({
      title: 'Sign in', ...(notice && { notice }),
      body: html`${provider}<p>Open the one-time sign-in link you were given. An operator mints one with
        <code>npm run admin -- users sign-in-link --user ID</code>; on its first start, <code>npm start</code> prints one for the demo user.</p>`,
    }));
  });

  app.get<{ Querystring: { token?: string } }>('/sign-in/link', async (request, reply) => {
    const token = typeof request.query.token === 'string' ? request.query.token : '';
    if (!token) throw new PageError(400, 'This sign-in link is incomplete: open the whole link you were given.');
    const csrf = reply.generateCsrf();
    return reply.type('text/html').header('referrer-policy', 'no-referrer').send(page({
      title: 'Sign in',
      body: html`<p>This link signs you in once and then stops working.</p>
        <form method="post" action="/sign-in/link">${csrfField(csrf)}<input type="hidden" name="token" value="${token}">
        <button type="submit">Sign in</button></form>`,
    }));
  });

  app.post<{ Body: { token?: string } }>('/sign-in/link', { preHandler: [sameOriginForm, app.csrfProtection] }, async (request, reply) => {
    const token = typeof request.body?.token === 'string' ? request.body.token : '';
    let sessionId: string;
    try {
      ({ sessionId } = await context.clients.identity.redeemSignInLink({
        token, policy: context.session, previousSessionId: sessionIdOf(context, request),
      }, await asEdge(context, request)));
    } catch (error) {
      // An outage is not a bad link: the page says to try again, and the link stays unused.
      if (isLoggedAsOutage(error)) throw error;
      throw new PageError(401, 'This sign-in link is unknown, already used or expired. Ask for a new one.');
    }
    setSessionCookie(context, reply, sessionId);
    return reply.redirect(afterSignIn(context, request, reply), 303);
  });

  app.post('/sign-out', { preHandler: app.csrfProtection }, async (request, reply) => {
    const sessionId = sessionIdOf(context, request);
    if (sessionId) await context.clients.identity.endSession({ sessionId }, await asEdge(context, request));
    clearSessionCookie(context, reply);
    return reply.redirect('/sign-in', 303);
  });
}
