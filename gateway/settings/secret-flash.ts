// The secret of a key just minted or rolled, carried from the form's POST to the one page that
// shows it (post/redirect/get): the POST mints and answers 303 to GET /keys/<id>/created, so a
// reload or a Back never mints again. Between the two the secret rides in a short-lived cookie,
// encrypted (AES-256-GCM) with a key derived from the server's cookie secret, the same on every
// replica (no shared store needed), and bound to the session and the key's id (its associated
// data): another session, or another key's page, cannot open it. Each new key has a cookie of its
// own, so two keys minted in two tabs each find their secret. The created page opens it once and
// clears it in the same answer: a reload finds nothing and says the secret was already shown.
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { SettingsContext } from './context.js';
import { hostCookieName, sessionIdOf } from './session.js';

/** How long a new secret waits for its page: the redirect follows at once; a stalled browser gets it within this. */
export const SECRET_FLASH_SECONDS = 300;

/** The cookie of one new key (ids the app mints are `key_` and base64url: a valid cookie name). */
const cookieName = (context: SettingsContext, keyId: string) => hostCookieName(context, `en_new_secret_${keyId}`);

export interface SecretFlash {
  /** Keeps `secret` for the created page of `keyId`, for this session only. */
  keep(request: FastifyRequest, reply: FastifyReply, keyId: string, secret: string): void;
  /** The secret kept for `keyId` in this session, at most once: the cookie is cleared as it is opened. */
  take(request: FastifyRequest, reply: FastifyReply, keyId: string): string | undefined;
}

export function createSecretFlash(app: FastifyInstance, context: SettingsContext): SecretFlash {
  // The cookie plugin's signature of a fixed label is an HMAC keyed with the server's cookie
  // secret: a key of this app alone, derived without being handed another secret.
  const key = createHash('sha256').update(app.signCookie('settings new-secret flash v1')).digest();
  const boundTo = (request: FastifyRequest, keyId: string) => Buffer.from(`${sessionIdOf(context, request)}\n${keyId}`);
  const cookieOptions = { httpOnly: true, sameSite: 'strict' as const, secure: context.secureCookies, path: '/' };

  return {
    keep(request, reply, keyId, secret) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv).setAAD(boundTo(request, keyId));
      const sealed = Buffer.concat([iv, cipher.update(secret, 'utf8'), cipher.final(), cipher.getAuthTag()]);
      reply.setCookie(cookieName(context, keyId), sealed.toString('base64url'), { ...cookieOptions, maxAge: SECRET_FLASH_SECONDS });
    },

    take(request, reply, keyId) {
      const value = request.cookies[cookieName(context, keyId)];
      if (value === undefined) return undefined;
      const sealed = Buffer.from(value, 'base64url');
      if (sealed.length < 12 + 16 + 1) return undefined;
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, sealed.subarray(0, 12)).setAAD(boundTo(request, keyId));
        decipher.setAuthTag(sealed.subarray(sealed.length - 16));
        const secret = Buffer.concat([decipher.update(sealed.subarray(12, sealed.length - 16)), decipher.final()]).toString('utf8');
        reply.clearCookie(cookieName(context, keyId), cookieOptions);
        return secret;
      } catch {
        return undefined; // another session's, another key's, or tampered with
      }
    },
  };
}
