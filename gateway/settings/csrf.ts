// CSRF protection of every state-changing form of the settings app (docs/SETTINGS.md "Protections").
// @fastify/csrf-protection keeps a random secret in a signed cookie and checks each form's token
// against it; on its own, any secret and token pair would pass for any browser that sends the pair,
// and a page on another port of this host (or a sibling subdomain, over plain http) can plant a
// cookie. So each token is also bound to what the browser holds that no other page can know: the
// library's `userInfo`, keyed with a server secret (its hmacKey), is
//   - the session id (the httpOnly session cookie's value) when the browser has one: a token minted
//     for another session, or for no session, does not verify (the routes still have identity
//     decide whether the session is live);
//   - else its pre-session: a random id in a short-lived signed cookie, set with the first signed-out
//     form (sign-in) this browser opens, so a token from one browser's page does not verify in
//     another browser.
// A request with neither verifies no token. A refusal is a 403 page (errors.ts), before the route.
// The signed-out forms also refuse a post another origin's page sent (sameOriginForm).
import { randomBytes } from 'node:crypto';
import fastifyCsrf from '@fastify/csrf-protection';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { SettingsContext } from './context.js';
import { PageError } from './page-error.js';
import { hostCookieName, sessionIdOf } from './session.js';

/** What a refused form's page says (a token that does not verify, or a post from another origin). */
export const CSRF_REFUSAL = 'This form was not sent from a page of this site in your current session, or the page is too old. Reload the page and try again.';

/** How long a signed-out browser's pre-session (and so a sign-in form's token) lasts. */
export const PRE_SESSION_SECONDS = 3600;

const preSessionCookieName = (context: SettingsContext) => hostCookieName(context, 'en_presession');

/** The browser's pre-session id: from its signed cookie, while not older than PRE_SESSION_SECONDS. */
function preSessionOf(context: SettingsContext, request: FastifyRequest): string | undefined {
  const raw = request.cookies[preSessionCookieName(context)];
  const unsigned = raw ? request.unsignCookie(raw) : undefined;
  if (!unsigned?.valid || !unsigned.value) return undefined;
  const [id, issuedAt] = unsigned.value.split('~');
  const age = Date.now() / 1000 - Number(issuedAt);
  return id && age >= 0 && age <= PRE_SESSION_SECONDS ? id : undefined;
}

/** What a request's token must be bound to: its session, else its pre-session; '' (nothing verifies) for neither. */
function bindingOf(context: SettingsContext, request: FastifyRequest): string {
  const sessionId = sessionIdOf(context, request);
  if (sessionId) return `session:${sessionId}`;
  const preSession = preSessionOf(context, request);
  return preSession ? `pre:${preSession}` : '';
}

/** The pre-session a request's page minted, for a second token of the same page. */
const minted = new WeakMap<FastifyRequest, string>();

/** The binding a page's forms get: a browser with neither a session nor a pre-session gets a new pre-session. */
function bindingForPage(context: SettingsContext, request: FastifyRequest, reply: FastifyReply): string {
  const binding = bindingOf(context, request) || minted.get(request);
  if (binding) return binding;
  const id = randomBytes(18).toString('base64url');
  reply.setCookie(preSessionCookieName(context), `${id}~${Math.floor(Date.now() / 1000)}`, {
    signed: true, httpOnly: true, sameSite: 'strict', secure: context.secureCookies, path: '/', maxAge: PRE_SESSION_SECONDS,
  });
  minted.set(request, `pre:${id}`);
  return `pre:${id}`;
}

/**
 * Registers the protection: `app.csrfProtection` (a preHandler of every state-changing form) and
 * `reply.generateCsrf()` (a page's token).
 * `key` keys the tokens' binding: a server secret, the same across replicas.
 */
export async function registerCsrf(app: FastifyInstance, context: SettingsContext, key: string): Promise<void> {
  await app.register(fastifyCsrf, {
    cookieKey: hostCookieName(context, 'en_csrf'),
    cookieOpts: { signed: true, httpOnly: true, sameSite: 'strict', path: '/', secure: context.secureCookies },
    csrfOpts: { hmacKey: key, userInfo: true },
    getUserInfo: (request) => bindingOf(context, request),
    // Forms send the token as a field; no header is read.
    getToken: (request) => {
      const token = (request.body as Record<string, unknown> | undefined)?._csrf;
      return typeof token === 'string' ? token : undefined;
    },
  });
  // The library takes the binding as an argument of each generateCsrf call; every page's token is
  // bound the same way, so it is supplied here once rather than by each route.
  app.addHook('onRequest', async (request, reply) => {
    const generate = reply.generateCsrf;
    reply.generateCsrf = (options) => generate.call(reply, { ...options, userInfo: bindingForPage(context, request, reply) });
  });
}

/**
 * A preHandler of the signed-out forms (sign-in), before csrfProtection. Their tokens are bound to
 * the pre-session cookie, which a page on another port of this host could plant together with a
 * token of its own (cookies ignore ports, and over plain http any cookie can be planted), and so
 * sign the browser in to the attacker's account. So the browser's own word on where the form comes
 * from (Fetch Metadata) is required too: a post from another origin, same site or not, is refused.
 * A client that sends no Sec-Fetch-Site (not a browser) relies on the token alone.
 */
export async function sameOriginForm(request: FastifyRequest): Promise<void> {
  const site = request.headers['sec-fetch-site'];
  if (site === 'cross-site' || site === 'same-site') throw new PageError(403, CSRF_REFUSAL);
}
