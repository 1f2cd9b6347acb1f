// What the settings surface's routes share: the services' clients and the signer of caller tokens,
// how its cookies are set, and the session policy. The surface owns no data: sign-in links and
// sessions live in identity, keys in identity, communities and wallets in their services.
import type { FastifyRequest } from 'fastify';
import { callAs, type CallOptions, type ServiceClients } from '../../services/kit/grpc/client.js';
import type { TokenSigner } from '../../services/kit/grpc/caller-token.js';
import type Provider from 'oidc-provider';
import type { OidcSignIn } from './oidc-sign-in.js';

export interface SessionPolicy {
  idleSeconds: number;
  absoluteSeconds: number;
}

export interface SettingsContext {
  clients: ServiceClients;
  signer: TokenSigner;
  deadlineMs: number;
  /** Cookies carry the Secure attribute (the app is served over TLS: SETTINGS_PUBLIC_URL is https). */
  secureCookies: boolean;
  session: SessionPolicy;
  /** Sign-in at an external OpenID Connect provider, when one is configured (else links only). */
  oidc?: OidcSignIn;
  /** The OAuth authorization server served under /oauth (absent with an external issuer). */
  authorizationServer?: Provider;
  /** What the consent page calls each resource a token may be for, by its URL. */
  resourceNames?: Readonly<Record<string, string>>;
}

/** The signed-in user of a request (set by the session hook on every signed-in route). */
export interface SignedInUser {
  id: string;
  name: string;
  email: string;
}

declare module 'fastify' {
  interface FastifyRequest {
    user?: SignedInUser;
  }
}

/** Call options acting as the signed-in user: services re-check that user's rights. */
export function asUser(context: SettingsContext, request: FastifyRequest): Promise<CallOptions> {
  return callAs(context.signer, { kind: 'user', userId: request.user!.id }, request.id, context.deadlineMs);
}

/** Call options of the surface itself, before a user exists (sign-in, session lookup). */
export function asEdge(context: SettingsContext, request: FastifyRequest): Promise<CallOptions> {
  return callAs(context.signer, { kind: 'edge' }, request.id, context.deadlineMs);
}
