// Sign-in at an external OpenID Connect provider (docs/SETTINGS.md "Signing in"): the
// authorization code flow with PKCE (S256), a state and a nonce, through openid-client. The
// provider's metadata is discovered once and kept; a failed discovery is tried again on the next
// sign-in. The ID token's signature, issuer, audience, expiry and nonce are openid-client's to
// check; what comes out is the identity identity links to a user.
import * as oidc from 'openid-client';
import { isLoopbackHost } from '../../services/kit/url-host.js';

export interface OidcSettings {
  /** The provider's issuer identifier (its discovery document is read from it). */
  issuer: string;
  clientId: string;
  /** Set when the provider holds this app as a confidential client; else a public client (PKCE alone). */
  clientSecret?: string;
  /** What the sign-in button calls the provider. */
  name: string;
}

/** What the browser keeps between leaving for the provider and coming back (in a signed cookie). */
export interface PendingSignIn {
  verifier: string;
  state: string;
  nonce: string;
}

/** The person the provider signed in, as the ID token says. */
export interface ProviderIdentity {
  issuer: string;
  subject: string;
  email: string;
  emailVerified: boolean;
}

/** The provider could not be reached (discovery or the token request): the page says so. */
export class ProviderUnavailable extends Error {}
/** The provider's answer did not verify (state, code, PKCE, ID token): the page says so. */
export class ProviderAnswerRefused extends Error {}

const SCOPE = 'openid email profile';
const TIMEOUT_SECONDS = 10;

export class OidcSignIn {
  private configuration: Promise<oidc.Configuration> | undefined;

  constructor(
    readonly settings: OidcSettings,
    /** Where the provider sends the browser back: the app's public URL + /sign-in/oidc/callback. */
    readonly redirectUri: () => string,
  ) {}

  private discover(): Promise<oidc.Configuration> {
    if (!this.configuration) {
      const issuer = new URL(this.settings.issuer);
      const auth = this.settings.clientSecret ? oidc.ClientSecretPost(this.settings.clientSecret) : oidc.None();
      // Plain HTTP only for a provider on this machine (development and tests); https elsewhere.
      const insecure = issuer.protocol === 'http:' && isLoopbackHost(issuer.hostname);
      this.configuration = oidc
        .discovery(issuer, this.settings.clientId, undefined, auth, { timeout: TIMEOUT_SECONDS, ...(insecure && { execute: [oidc.allowInsecureRequests] }) })
        .catch((error: unknown) => {
          this.configuration = undefined;
          throw new ProviderUnavailable(`the provider's metadata could not be read: ${(error as Error).message}`);
        });
    }
    return this.configuration;
  }

  /** The provider's authorization URL for a new sign-in, and what to keep until the browser is back. */
  async start(): Promise<{ url: URL; pending: PendingSignIn }> {
    const config = await this.discover();
    const pending = { verifier: oidc.randomPKCECodeVerifier(), state: oidc.randomState(), nonce: oidc.randomNonce() };
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: this.redirectUri(),
      scope: SCOPE,
      code_challenge: await oidc.calculatePKCECodeChallenge(pending.verifier),
      code_challenge_method: 'S256',
      state: pending.state,
      nonce: pending.nonce,
    });
    return { url, pending };
  }

  /**
   * Exchanges the code the browser brought back (`search`: the callback's query) for the identity.
   * The e-mail claims come from the ID token, or else from the UserInfo endpoint (where providers
   * put the claims of the `email` scope when the ID token carries only `sub`), checked to be about
   * the same subject.
   */
  async finish(search: string, pending: PendingSignIn): Promise<ProviderIdentity> {
    const config = await this.discover();
    const current = new URL(this.redirectUri());
    current.search = search;
    return this.answer(async () => {
      const tokens = await oidc.authorizationCodeGrant(config, current, {
        pkceCodeVerifier: pending.verifier, expectedState: pending.state, expectedNonce: pending.nonce, idTokenExpected: true,
      });
      const claims = tokens.claims();
      if (!claims) throw new ProviderAnswerRefused('the provider sent no ID token');
      const email = claims.email === undefined && config.serverMetadata().userinfo_endpoint
        ? await oidc.fetchUserInfo(config, tokens.access_token, claims.sub)
        : claims;
      return {
        issuer: claims.iss,
        subject: claims.sub,
        email: typeof email.email === 'string' ? email.email : '',
        emailVerified: email.email_verified === true,
      };
    });
  }

  /** Runs a step of the exchange, telling an unreachable provider from an answer that did not verify. */
  private async answer<T>(step: () => Promise<T>): Promise<T> {
    try {
      return await step();
    } catch (error) {
      if (error instanceof ProviderAnswerRefused) throw error;
      if (error instanceof TypeError || (error as { code?: string }).code === 'OAUTH_TIMEOUT') throw new ProviderUnavailable((error as Error).message);
      throw new ProviderAnswerRefused((error as Error).message);
    }
  }
}
