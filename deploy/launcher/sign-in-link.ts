// One-time sign-in links to the settings web app (docs/SETTINGS.md): minted by identity for a user
// (as the operator), and turned into the URL a person opens. Used by `npm start` for the demo user
// on a first start and by the admin CLI (`users sign-in-link --user ID`).
import type { Config } from '../../services/kit/config.js';
import { settingsPublicUrlOf } from '../../services/kit/public-urls.js';
import { callAs, type ServiceClients } from '../../services/kit/grpc/client.js';
import type { TokenSigner } from '../../services/kit/grpc/caller-token.js';

export interface SignInLink {
  url: string;
  expiresAt: string;
}

/** The settings app's public base URL: SETTINGS_PUBLIC_URL, else the address it listens on. */
export function settingsBaseUrl(config: Config, boundPort?: number): string {
  return settingsPublicUrlOf({ ...config, SETTINGS_PORT: boundPort ?? config.SETTINGS_PORT });
}

export async function mintSignInLink(
  deps: { clients: ServiceClients; signer: TokenSigner; deadlineMs: number },
  baseUrl: string,
  userId: string,
  actor: string,
): Promise<SignInLink> {
  const options = await callAs(deps.signer, { kind: 'operator', actor }, undefined, deps.deadlineMs);
  const { token, expiresAt } = await deps.clients.identity.createSignInLink({ userId, ttlSeconds: 0 }, options);
  return { url: `${baseUrl}/sign-in/link?token=${encodeURIComponent(token)}`, expiresAt: expiresAt ?? '' };
}
