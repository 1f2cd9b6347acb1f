// The settings web app's sign-in rules (docs/SETTINGS.md): a one-time link is a random token,
// redeemable once and only for a short time; an identity at an external OpenID Connect provider
// signs in the user it is linked to. Either opens a new server-side session (the id rotates at
// sign-in: the browser's previous session ends) that ends when unused for its idle time or at its
// absolute expiry. Only keyed hashes of tokens and session ids are stored.
import { randomBytes } from 'node:crypto';
import type {
  CreateSignInLinkRequest, CreateSignInLinkResponse, RedeemSignInLinkRequest, RedeemSignInLinkResponse, ResolveSessionResponse,
  SessionPolicy, SignInWithProviderRequest, SignInWithProviderResponse,
} from '../../proto/gen/expertnet/identity/v1/web_sessions.js';
import { domainError } from '../kit/grpc/errors.js';
import { hashSecret } from './api-key-secret.js';
import type { IdentityContext } from './identity-context.js';
import type { NewSession } from './web-session.repository.js';

export const DEFAULT_LINK_TTL_SECONDS = 15 * 60;
const MAX_LINK_TTL_SECONDS = 24 * 60 * 60;
const MAX_SESSION_SECONDS = 30 * 24 * 60 * 60;
/** Tokens and session ids: 32 random bytes, base64url — never guessable, safe in a URL and a cookie. */
const TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;

function newToken(): string {
  return randomBytes(32).toString('base64url');
}

export async function createSignInLink(context: IdentityContext, request: CreateSignInLinkRequest): Promise<CreateSignInLinkResponse> {
  const ttl = request.ttlSeconds || DEFAULT_LINK_TTL_SECONDS;
  if (ttl > MAX_LINK_TTL_SECONDS) throw domainError('invalid_request', `ttl_seconds must be at most ${MAX_LINK_TTL_SECONDS}`);
  const user = await context.users.findUser(request.userId);
  if (!user) throw domainError('not_found', `user ${request.userId} not found`);
  const token = newToken();
  const expiresAt = await context.webSessions.insertLink(hashSecret(token, context.deps.pepper), user.id, ttl);
  return { token, expiresAt: expiresAt.toISOString() };
}

/** A new session id and what identity keeps of it, under the surface's policy (checked here). */
function newSession(context: IdentityContext, policy: SessionPolicy | undefined, previousSessionId: string): { sessionId: string; session: NewSession } {
  const idle = policy?.idleSeconds ?? 0;
  const absolute = policy?.absoluteSeconds ?? 0;
  if (idle < 1 || absolute < 1 || idle > MAX_SESSION_SECONDS || absolute > MAX_SESSION_SECONDS) {
    throw domainError('invalid_request', `a session policy needs idle and absolute lifetimes of 1 to ${MAX_SESSION_SECONDS} seconds`);
  }
  const pepper = context.deps.pepper;
  const sessionId = newToken();
  const previous = TOKEN_PATTERN.test(previousSessionId) ? hashSecret(previousSessionId, pepper) : undefined;
  return { sessionId, session: { idHash: hashSecret(sessionId, pepper), idleSeconds: idle, absoluteSeconds: absolute, ...(previous && { previousIdHash: previous }) } };
}

export async function redeemSignInLink(context: IdentityContext, request: RedeemSignInLinkRequest): Promise<RedeemSignInLinkResponse> {
  const { sessionId, session } = newSession(context, request.policy, request.previousSessionId);
  const refused = () => domainError('unauthorized', 'this sign-in link is unknown, already used or expired');
  if (!TOKEN_PATTERN.test(request.token)) throw refused();
  const userId = await context.webSessions.redeem(hashSecret(request.token, context.deps.pepper), session);
  if (!userId) throw refused();
  return { sessionId, userId };
}

/**
 * Signs in the user an external identity is linked to (linking a new identity by its verified
 * e-mail address first). An identity that answers to no user is refused with a message the page
 * can show: accounts are made by an operator, never by signing in.
 */
export async function signInWithProvider(context: IdentityContext, request: SignInWithProviderRequest): Promise<SignInWithProviderResponse> {
  const { sessionId, session } = newSession(context, request.policy, request.previousSessionId);
  if (!request.issuer || !request.subject) throw domainError('invalid_request', 'an external identity needs its issuer and subject');
  const userId = await context.webSessions.signInExternal(
    { issuer: request.issuer, subject: request.subject, email: request.email, emailVerified: request.emailVerified }, session);
  if (!userId) {
    throw domainError('unauthorized', request.emailVerified && request.email
      ? 'no account uses the e-mail address your provider gave; ask an operator to add you'
      : 'your provider gave no verified e-mail address, and this identity is not linked to an account');
  }
  return { sessionId, userId };
}

export async function resolveSession(context: IdentityContext, sessionId: string): Promise<ResolveSessionResponse> {
  if (!TOKEN_PATTERN.test(sessionId)) return { userId: '', userName: '', userEmail: '' };
  const row = await context.webSessions.touch(hashSecret(sessionId, context.deps.pepper));
  return { userId: row?.user_id ?? '', userName: row?.name ?? '', userEmail: row?.email ?? '' };
}

/** Ends the session (an unknown or ended one is left as it is); the answer is empty. */
export async function endSession(context: IdentityContext, sessionId: string): Promise<Record<string, never>> {
  if (TOKEN_PATTERN.test(sessionId)) await context.webSessions.end(hashSecret(sessionId, context.deps.pepper));
  return {};
}
