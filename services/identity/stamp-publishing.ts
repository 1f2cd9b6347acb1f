// After a committed change to API keys, or to the organization roles of their users: the keys' new
// stamps are published before the change answers, so a caller cached anywhere is stale on the
// very next request (credential-cache.ts, docs/CREDENTIAL-CACHE.md).
import type { IdentityContext } from './identity-context.js';

export async function publishKeyStamps(context: IdentityContext, keyIds: string[], userIds: string[] = []): Promise<void> {
  if (!context.callers || (keyIds.length === 0 && userIds.length === 0)) return;
  await context.callers.publish(await context.keys.findForStamps(keyIds, userIds));
}
