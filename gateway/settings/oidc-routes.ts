// Sign-in at an external OpenID Connect provider (oidc-sign-in.ts), when one is configured: the
// sign-in page offers it; /sign-in/oidc sends the browser to the provider with PKCE, a state and a
// nonce kept in a short-lived signed cookie bound to this browser (__Host- prefixed behind TLS);
// the callback checks them, has identity sign in the user the identity is linked to, and opens a
// session (the id rotates).
// Every refusal is a page that says what to do; no code, token or claim is logged.
import type { FastifyInstance, FastifyReply } from 'fastify';
import { asEdge, type SettingsContext } from './context.js';
import { ProviderAnswerRefused, ProviderUnavailable, type PendingSignIn } from './oidc-sign-in.js';
import { PageError } from './page-error.js';
import { afterSignIn, hostCookieName, sessionIdOf, setSessionCookie } from './session.js';

const PENDING_COOKIE = 'en_oidc';
/** How long the browser may stay at the provider before the sign-in must start again. */
const PENDING_SECONDS = 600;
/** An OAuth error code as RFC 6749 defines them (a crafted link cannot put other words on the page). */
const ERROR_CODE = /^[a-z_]{1,64}$/;

function pendingOf(value: unknown): PendingSignIn | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { verifier, state, nonce } = value as Record<string, unknown>;
  return typeof verifier === 'string' && typeof state === 'string' && typeof nonce === 'string' ? { verifier, state, nonce } : undefined;
}

function unavailable(): PageError {
  return new PageError(503, 'The sign-in provider cannot be reached right now. Try again in a moment, or use a sign-in link.');
}

export function registerOidcRoutes(app: FastifyInstance, context: SettingsContext): void {
  // Path=/, as the __Host- prefix requires.
  const pendingCookie = hostCookieName(context, PENDING_COOKIE);
  const cookieOptions = { signed: true, httpOnly: true, sameSite: 'lax' as const, secure: context.secureCookies, path: '/' };
  const clearPending = (reply: FastifyReply) => reply.clearCookie(pendingCookie, cookieOptions);

  app.get('/sign-in/oidc', async (_request, reply) => {
    if (!context.oidc) throw new PageError(404, 'Sign-in with an identity provider is not set up here: use a sign-in link.');
    let started;
    try {
      started = await context.oidc.start();
    } catch (error) {
      if (error instanceof ProviderUnavailable) throw unavailable();
      throw error;
    }
    reply.setCookie(pendingCookie, JSON.stringify(started.pending), { ...cookieOptions, maxAge: PENDING_SECONDS });
    return reply.redirect(started.url.href, 303);
  });

  app.get<{ Querystring: Record<string, string | string[] | undefined> }>('/sign-in/oidc/callback', async (request, reply) => {
    if (!context.oidc) throw new PageError(404, 'Sign-in with an identity provider is not set up here: use a sign-in link.');
    const raw = request.cookies[pendingCookie];
    clearPending(reply);
    const unsigned = raw ? request.unsignCookie(raw) : undefined;
    let pending: PendingSignIn | undefined;
    try {
      pending = unsigned?.valid && unsigned.value ? pendingOf(JSON.parse(unsigned.value)) : undefined;
    } catch {
      pending = undefined;
    }
    if (!pending) throw new PageError(400, 'This sign-in was not started in this browser, or took longer than 10 minutes. Start again.');
    const error = request.query.error;
    if (error !== undefined) {
      const code = typeof error === 'string' && ERROR_CODE.test(error) ? ` (${error})` : '';
      throw new PageError(401, `Your identity provider did not sign you in${code}. Start again, or use a sign-in link.`);
    }

    let identity;
    try {
      identity = await context.oidc.finish(new URL(request.url, 'http://callback').search, pending);
    } catch (failure) {
      if (failure instanceof ProviderUnavailable) throw unavailable();
      if (failure instanceof ProviderAnswerRefused) {
        request.log.warn({ reason: failure.message }, 'settings sign-in: the provider answer did not verify');
        throw new PageError(401, 'The answer of your identity provider could not be verified. Start again.');
      }
      throw failure;
    }
    // An identity that answers to no user is refused by identity (401, with what to do).
    const { sessionId } = await context.clients.identity.signInWithProvider({
      ...identity, policy: context.session, previousSessionId: sessionIdOf(context, request),
    }, await asEdge(context, request));
    setSessionCookie(context, reply, sessionId);
    return reply.redirect(afterSignIn(context, request, reply), 303);
  });
}
