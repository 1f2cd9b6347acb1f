// The session cookie: httpOnly, SameSite=Lax, Secure (and the __Host- prefix) behind TLS. Its
// value is the session id identity handed out at sign-in; identity alone decides whether it is
// still live (idle and absolute expiry), on every request.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { asEdge, type SettingsContext, type SignedInUser } from './context.js';

/**
 * A cookie's name: with the __Host- prefix behind TLS, so the browser accepts it only Secure, for
 * the whole of this host (Path=/) and from this host alone (no Domain): a sibling subdomain cannot
 * set or shadow it. Every cookie of the app is named through here.
 */
export function hostCookieName(context: SettingsContext, name: string): string {
  return context.secureCookies ? `__Host-${name}` : name;
}

export function sessionCookieName(context: SettingsContext): string {
  return hostCookieName(context, 'en_settings');
}

export function setSessionCookie(context: SettingsContext, reply: FastifyReply, sessionId: string): void {
  reply.setCookie(sessionCookieName(context), sessionId, {
    httpOnly: true, sameSite: 'lax', secure: context.secureCookies, path: '/', maxAge: context.session.absoluteSeconds,
  });
}

export function clearSessionCookie(context: SettingsContext, reply: FastifyReply): void {
  reply.clearCookie(sessionCookieName(context), { path: '/', secure: context.secureCookies, httpOnly: true, sameSite: 'lax' });
}

export function sessionIdOf(context: SettingsContext, request: FastifyRequest): string {
  return request.cookies[sessionCookieName(context)] ?? '';
}

/** The user of the request's live session, or undefined (an ended session's cookie is cleared). */
export async function currentUser(context: SettingsContext, request: FastifyRequest, reply: FastifyReply): Promise<SignedInUser | undefined> {
  const sessionId = sessionIdOf(context, request);
  if (!sessionId) return undefined;
  const found = await context.clients.identity.resolveSession({ sessionId }, await asEdge(context, request));
  if (found.userId) return { id: found.userId, name: found.userName, email: found.userEmail };
  clearSessionCookie(context, reply);
  return undefined;
}

/**
 * A preHandler for signed-in routes: resolves the session with identity, or sends the browser to
 * sign in (303 for a page; the cookie of an ended session is cleared).
 */
export function requireSession(context: SettingsContext) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const hadSession = sessionIdOf(context, request) !== '';
    const user = await currentUser(context, request, reply);
    if (user) {
      request.user = user;
      return;
    }
    return reply.redirect(`/sign-in?expired=${hadSession ? '1' : '0'}`, 303);
  };
}

/** Where a sign-in may send the browser back to: an authorization request's consent page, nothing else. */
const RETURN_PATH = /^\/authorize\/[\w-]{1,128}$/;
const RETURN_COOKIE = 'en_return';

/** Remembers where to go after signing in (`next`, when it is a consent page), for 10 minutes. */
export function rememberReturn(context: SettingsContext, reply: FastifyReply, next: unknown): void {
  if (typeof next === 'string' && RETURN_PATH.test(next)) {
    reply.setCookie(hostCookieName(context, RETURN_COOKIE), next, { httpOnly: true, sameSite: 'lax', secure: context.secureCookies, path: '/', maxAge: 600 });
  }
}

/** Where a browser that just signed in goes: the remembered consent page (once), else its keys. */
export function afterSignIn(context: SettingsContext, request: FastifyRequest, reply: FastifyReply): string {
  const remembered = request.cookies[hostCookieName(context, RETURN_COOKIE)];
  if (remembered === undefined) return '/keys';
  reply.clearCookie(hostCookieName(context, RETURN_COOKIE), { path: '/', secure: context.secureCookies, httpOnly: true, sameSite: 'lax' });
  return RETURN_PATH.test(remembered) ? remembered : '/keys';
}
