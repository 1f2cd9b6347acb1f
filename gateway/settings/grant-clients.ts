// The names connected applications go by: each OAuth client's registered `client_name`, as the
// consent page showed it. Read from the authorization server's store of registrations only — a
// client named by the URL of its metadata document is shown by that URL, never fetched to list it.
import type { Adapter } from 'oidc-provider';
import type { OAuthGrant } from '../../proto/gen/expertnet/identity/v1/identity_service.js';
import type { SettingsContext } from './context.js';

/** Client id → registered name, for the clients of these grants that have one. */
export async function clientNamesOf(context: SettingsContext, grants: readonly OAuthGrant[]): Promise<Map<string, string>> {
  const names = new Map<string, string>();
  // (Its Client model has the store every model has; its typings leave it out.)
  const client = context.authorizationServer?.Client as unknown as { adapter: Adapter } | undefined;
  const adapter = client?.adapter;
  if (!adapter) return names;
  for (const clientId of new Set(grants.map((g) => g.clientId))) {
    if (!clientId) continue;
    const registration = await adapter.find(clientId);
    const name = registration?.client_name;
    if (typeof name === 'string' && name.trim()) names.set(clientId, name);
  }
  return names;
}
