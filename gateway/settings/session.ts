// The session cookie: httpOnly, SameSite=Lax, Secure (and the __Host- prefix) behind TLS. Its
// value is the session id identity handed out at sign-in; identity alone decides whether it is
// still live (idle and absolute expiry), on every request.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { asEdge, type SettingsContext } from './context.js';

export function sessionCookieName(context: SettingsContext): string {
  return context.secureCookies ? '__Host-en_settings' : 'en_settings';
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

/**
 * A preHandler for signed-in routes: resolves the session with identity, or sends the browser to
 * sign in (303 for a page; the cookie of an ended session is cleared).
 */
export function requireSession(context: SettingsContext) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const sessionId = sessionIdOf(context, request);
    if (sessionId) {
      const found = await context.clients.identity.resolveSession({ sessionId }, await asEdge(context, request));
      if (found.userId) {
        request.user = { id: found.userId, name: found.userName, email: found.userEmail };
        return;
      }
      clearSessionCookie(context, reply);
    }
    return reply.redirect(`/sign-in?expired=${sessionId ? '1' : '0'}`, 303);
  };
}
